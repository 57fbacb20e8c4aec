/**
 * Issue 10, new-user trial (medium): a session SIGKILLed during its restore (before the agent ran) left a
 * container that `recover` snapshotted as "unsaved work": a 31-byte branch whose diff against the head was
 * thousands of deletions, with advice (`lineage reset`) that would have emptied the tree. A sandbox that never
 * finished its restore holds no one's work: recover now says so and removes it, with no snapshot and no branch.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session.js';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'killed-in-restore';
const dirs = scratch();
const servers: MessagesServer[] = [];
const rollouts: string[] = [];

const containersOf = async (id: string) => dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.session}=${id}`] } });

/** Runs a session in a child process that SIGKILLs itself as its restore starts; returns its rollout id. */
async function killInRestore(serverUrl: string): Promise<string> {
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: serverUrl, WORKSPACE: dirs.workspace, LINEAGE, TASK: 'add a route', KILL_AT: 'restore:start' },
    reject: false,
  });
  expect(child.signal).toBe('SIGKILL');
  const id = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  rollouts.push(id);
  return id;
}

afterAll(async () => {
  for (const id of rollouts) await removeSessionContainers(id);
  await Promise.all(servers.map((s) => s.close()));
  dirs.cleanup();
});

describe('a session killed during its restore', () => {
  it('recover removes its sandbox, names no branch and keeps the head', { timeout: 300_000 }, async () => {
    const server = await startMessagesServer([turn(text('Nothing to change.')), turn(text('never reached'))]);
    servers.push(server);
    const first = await runSession({ workspace: dirs.workspace, task: 'look around', config: testConfig(dirs.home, server.url), lineage: LINEAGE });
    rollouts.push(first.rolloutId);
    const store = await openStore(join(dirs.home, 'store'));
    const head = await store.getHead(LINEAGE);
    expect(head).not.toBeNull();

    const id = await killInRestore(server.url);
    expect((await containersOf(id)).length).toBe(1);

    const env = { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_MEMORY_EXTRACTOR: 'deterministic' };
    const r = await execa(process.execPath, ['--import', 'tsx', CLI, 'recover', '--json'], { env, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { rescued: { rolloutId: string; snapshot: string | null; dropped?: boolean }[]; results: { branches: unknown[] }[] };
    expect(out.rescued).toEqual([expect.objectContaining({ rolloutId: id, snapshot: null, dropped: true })]);
    expect(out.results.flatMap((x) => x.branches)).toEqual([]);
    expect(await containersOf(id)).toEqual([]);
    expect(await store.getBranch(`${LINEAGE}@${id}`)).toBeNull();
    expect(await store.getHead(LINEAGE)).toBe(head);
    expect((await store.list({ lineage: LINEAGE })).filter((m) => m.rolloutIds.includes(id))).toEqual([]);
    const text2 = await execa(process.execPath, ['--import', 'tsx', CLI, 'recover'], { env, extendEnv: false, reject: false });
    expect(text2.stdout).toBe('nothing orphaned');
  });

  // The record of such a session and a killed writer's partial blob stayed until a `recover` or forever (tenth
  // new-user trial, low): the next session on the lineage removes both, never a live writer's temp file.
  it('the next session removes its sandbox, its record and the partial blobs of killed writers', { timeout: 300_000 }, async () => {
    const server = await startMessagesServer([turn(text('Nothing to change.')), turn(text('Nothing again.'))]);
    servers.push(server);
    const id = await killInRestore(server.url);
    const record = join(dirs.home, 'transcripts', `${id}.session.json`);
    expect(existsSync(record)).toBe(true);
    const tmp = join(dirs.home, 'store', 'tmp');
    mkdirSync(tmp, { recursive: true });
    const exited = execa('true');
    await exited;
    const gone = join(tmp, `blob-${exited.pid}-0123456789ab`);
    const live = join(tmp, `blob-${process.pid}-0123456789ab`);
    writeFileSync(gone, 'partial');
    writeFileSync(live, 'being written');
    const next = await runSession({ workspace: dirs.workspace, task: 'look again', config: testConfig(dirs.home, server.url), lineage: LINEAGE });
    rollouts.push(next.rolloutId);
    expect(next.outcome).toBe('completed');
    expect(await containersOf(id)).toEqual([]);
    expect(existsSync(record)).toBe(false);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(live)).toBe(true);
    rmSync(live);
  });
});
