/**
 * Trial 23 F5: a session run with `--store S` (not the home's store) was killed with its work only in its sandbox.
 * `doctor` said "fix: `mnemara recover`", and a plain `mnemara recover` rescued the sandbox into the home's store:
 * the lineage and its branch appeared where the user never looks, and `lineage list --store S` said "no lineages".
 * The session record now keeps the store the session wrote to: doctor names `recover --store S`, a recover (or the
 * next run) on another store leaves the sandbox and says where it belongs, and `recover --store S` rescues it there.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { cliJson, removeSessionContainers, runChildSession, scratch, sessionContainers } from './harness.js';

const LINEAGE = 'elsewhere';
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let rolloutId: string;
let otherStore: string;

const containersOf = sessionContainers;
const cli = (args: string[]) => cliJson(dirs.home, server.url, args);

beforeAll(async () => {
  dirs = scratch();
  otherStore = join(dirs.root, 'team-store');
  mkdirSync(otherStore, { recursive: true });
  server = await startMessagesServer([
    turn(text('Writing the helper.'), toolUse('bash', { command: "mkdir -p src && echo 'def f(): return 1' > src/f.py && echo written" })),
    turn(text('Running the long checks.'), toolUse('bash', { command: 'sleep 120' })),
    turn(text('done')),
  ]);
  const child = await runChildSession({ MNEMARA_HOME: dirs.home, MNEMARA_STORE: otherStore, ANTHROPIC_BASE_URL: server.url, WORKSPACE: dirs.workspace, LINEAGE, TASK: 'add f', KILL_AT: 'tool:start#2' });
  rolloutId = child.rolloutId;
  expect(child.signal).toBe('SIGKILL');
}, 240_000);

afterAll(async () => {
  if (rolloutId) await removeSessionContainers(rolloutId);
  await server?.close();
  dirs?.cleanup();
});

describe('a session killed while writing to a store other than the home one', () => {
  it('doctor, run without --store, names the recover that goes to the session\'s store', async () => {
    const { json } = await cli(['doctor']);
    const check = (json as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'sandboxes');
    expect(check?.detail).toContain(rolloutId);
    expect(check?.fix).toContain(`mnemara recover --store ${otherStore}`);
  });

  it('a plain recover leaves the sandbox alone, says where it belongs, and writes nothing into the home store', async () => {
    const r = await cli(['recover']);
    // Exit 1: its work is still only in the container (trial 24: exit 0 read as "all recovered").
    expect(r.exitCode, r.stderr).toBe(1);
    const out = r.json as { rescued: { rolloutId: string; skipped?: string }[]; results: unknown[] };
    expect(out.rescued).toEqual([expect.objectContaining({ rolloutId, skipped: expect.stringContaining(`mnemara recover --store ${otherStore}`) })]);
    expect(out.results).toEqual([]);
    expect((await containersOf(rolloutId)).map((c) => c.State)).toEqual(['running']);
    const home = await openStore(join(dirs.home, 'store'));
    expect(await home.getHead(LINEAGE)).toBeNull();
    expect(await home.listBranches(LINEAGE)).toEqual({});
  });

  it('recover --store S rescues it into S, as a branch of the lineage, and adopts its transcript there', async () => {
    const r = await cli(['recover', '--store', otherStore]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json as { rescued: { rolloutId: string; snapshot: string | null }[]; results: { lineage: string; adopted: string[] }[] };
    expect(out.rescued).toEqual([expect.objectContaining({ rolloutId, snapshot: expect.any(String) })]);
    expect(out.results.find((x) => x.lineage === LINEAGE)?.adopted).toEqual([rolloutId]);
    expect(await containersOf(rolloutId)).toEqual([]);
    const store = await openStore(otherStore);
    expect(await store.getBranch(`${LINEAGE}@${rolloutId}`)).not.toBeNull();
  });
});
