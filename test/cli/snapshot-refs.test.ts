/**
 * New-user trial of issue 10 (medium): the run summary names work kept off the head as a branch
 * `LINEAGE@ROLLOUT`, but `run --from`, `apply --from`, `snapshot verify` and `lineage reset/branch` took only ids.
 * Every place the command line takes a snapshot takes an id, a branch or a lineage (its head); a name that
 * resolves to nothing exits 2 naming it.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'refs/trial';
const BRANCH = `${LINEAGE}@20261202T045800221Z-7be1b4bea1`;
let dirs: ReturnType<typeof scratch>;
let headId: string;
let keptId: string;
let server: MessagesServer | undefined;
let rollout: string | undefined;
let implied: { rollout?: string; server?: MessagesServer } = {};

const mnemara = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', PATH: process.env.PATH ?? '', MNEMARA_LOG_LEVEL: 'warn', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });

beforeAll(async () => {
  dirs = scratch();
  const store = await openStore(join(dirs.home, 'store'));
  const head = await store.create({ dir: dirs.workspace }, { lineage: LINEAGE, kind: 'workspace' });
  await store.advanceHead(LINEAGE, null, head.id);
  // Work kept off the head, as a branch: one file more than the host directory.
  const side = join(dirs.root, 'side');
  cpSync(dirs.workspace, side, { recursive: true });
  writeFileSync(join(side, 'KEPT.md'), 'kept on the branch\n');
  const kept = await store.create({ dir: side }, { lineage: LINEAGE, kind: 'workspace', parent: head.id });
  await store.moveBranch(BRANCH, null, kept.id);
  headId = head.id;
  keptId = kept.id;
});

afterAll(async () => {
  for (const id of [rollout, implied.rollout]) if (id) await removeSessionContainers(id);
  await server?.close();
  await implied.server?.close();
  dirs?.cleanup();
});

describe('every command that takes a snapshot takes an id, a branch or a lineage', () => {
  it('snapshot verify takes a branch and a lineage, and says which name was not found', async () => {
    const byBranch = await mnemara(['snapshot', 'verify', BRANCH, '--json']);
    expect(byBranch.exitCode, byBranch.stderr).toBe(0);
    expect((JSON.parse(byBranch.stdout) as { results: { id: string; ok: boolean }[] }).results).toEqual([expect.objectContaining({ id: keptId, ok: true })]);
    const byLineage = await mnemara(['snapshot', 'verify', LINEAGE, '--json']);
    expect((JSON.parse(byLineage.stdout) as { results: { id: string }[] }).results.map((r) => r.id)).toEqual([headId]);
    const missing = await mnemara(['snapshot', 'verify', `${LINEAGE}@nosuch`]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`${LINEAGE}@nosuch is no snapshot id, branch`);
  });

  it('apply --from takes the branch the run summary names', async () => {
    const r = await mnemara(['apply', '-w', dirs.workspace, '--from', BRANCH, '--check', '--force', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { snapshot: string; applied: boolean };
    expect(out).toMatchObject({ snapshot: keptId, applied: false });
    expect(r.stdout).toContain('KEPT.md');
    const missing = await mnemara(['apply', '-w', dirs.workspace, '--from', 'no/such/lineage', '--check']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no/such/lineage is no snapshot id, lineage');
  });

  it('lineage branch and reset take a branch or a lineage as the snapshot', async () => {
    const b = await mnemara(['lineage', 'branch', `${LINEAGE}@copy`, BRANCH, '--json']);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ name: `${LINEAGE}@copy`, snapshot: keptId });
    const missing = await mnemara(['lineage', 'reset', LINEAGE, `${LINEAGE}@nosuch`]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`${LINEAGE}@nosuch is no snapshot id, branch`);
  });

  it('run --from a name that is nothing exits 2 before any sandbox starts', async () => {
    const r = await mnemara(['run', '-w', dirs.workspace, '--task', 'x', '--from', `${LINEAGE}@nosuch`, '--json'], { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.stringContaining(`${LINEAGE}@nosuch`) } });
  });

  it('run --from the branch LINEAGE@ROLLOUT starts from that branch', async () => {
    server = await startMessagesServer([turn(text('Nothing to do.'))]);
    const r = await mnemara(['run', '-w', dirs.workspace, '--lineage', LINEAGE, '--task', 'look around', '--from', BRANCH, '--json'], { ANTHROPIC_BASE_URL: server.url });
    const result = JSON.parse(r.stdout) as SessionResult;
    rollout = result.rolloutId;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result.start).toMatchObject({ kind: 'snapshot', snapshotId: keptId });
  }, 180_000);

  it('run --from LINEAGE@ROLLOUT without --lineage runs on that lineage and says so', async () => {
    implied.server = await startMessagesServer([turn(text('Nothing to do here either.'))]);
    const headBefore = await (await openStore(join(dirs.home, 'store'))).getHead(LINEAGE);
    const r = await mnemara(['run', '-w', dirs.workspace, '--task', 'look around', '--from', BRANCH], { ANTHROPIC_BASE_URL: implied.server.url });
    implied.rollout = /rollout (\S+) on lineage/.exec(r.stderr)?.[1];
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`on lineage ${LINEAGE} (from --from ${BRANCH}; name another with --lineage NAME)`);
    expect(r.stdout).toContain(`lineage     ${LINEAGE} → head`);
    // That lineage's head moved (not the directory's default lineage's).
    const headAfter = await (await openStore(join(dirs.home, 'store'))).getHead(LINEAGE);
    expect(headAfter).not.toBe(headBefore);
  }, 180_000);
});
