/**
 * A session killed (SIGKILL) after its workspace snapshot reached the head leaves its container running, but no
 * unsaved work in it. `mnemara doctor` and `mnemara recover` decide this by one rule (`findGoneSandboxes`, the
 * rollout's own workspace snapshot): doctor says the work is already in that snapshot (new-user trial: it said
 * "holding unsaved work" while recover said "already snapshotted"), recover removes the container and takes no
 * snapshot and names no branch, and `sandbox prune` does not keep it as holding unsaved work. Real Docker sandbox.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'killed-after-publish';
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let rolloutId: string;
let workspaceSnapshot: string;

const containersOf = async (id: string) => dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.session}=${id}`] } });

async function cli(args: string[]): Promise<{ exitCode: number; json: unknown; stderr: string }> {
  const env = { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url };
  const r = await execa(process.execPath, ['--import', 'tsx', CLI, ...args, '--json'], { env, extendEnv: false, reject: false });
  return { exitCode: r.exitCode ?? -1, json: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

beforeAll(async () => {
  dirs = scratch();
  server = await startMessagesServer(policy(FIX_BUG));
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: server.url, WORKSPACE: dirs.workspace, LINEAGE, TASK: FIX_BUG.task, KILL_AT: 'publish:end' },
    reject: false,
  });
  rolloutId = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  expect(child.signal).toBe('SIGKILL');
  const store = await openStore(join(dirs.home, 'store'));
  workspaceSnapshot = (await store.list({ lineage: LINEAGE })).find((m) => m.kind === 'workspace' && m.rolloutIds.at(-1) === rolloutId)!.id;
}, 240_000);

afterAll(async () => {
  if (rolloutId) await removeSessionContainers(rolloutId);
  await server?.close();
  dirs?.cleanup();
});

describe('a session killed after its workspace snapshot reached the head', () => {
  it('doctor says its container holds no unsaved work: the work is in its workspace snapshot', async () => {
    expect((await containersOf(rolloutId)).length).toBe(1);
    const { json } = await cli(['doctor']);
    const check = (json as { checks: { name: string; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'sandboxes');
    expect(check?.detail).toContain(rolloutId);
    expect(check?.detail).not.toContain('unsaved work');
    expect(check?.detail).toContain(`already in a workspace snapshot`);
    expect(check?.detail).toContain(workspaceSnapshot);
  });

  it('recover agrees: it takes no snapshot, names no branch, and removes the container', async () => {
    const r = await cli(['recover']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json as { rescued: { rolloutId: string; snapshot: string | null; savedIn?: string }[] };
    expect(out.rescued).toEqual([expect.objectContaining({ rolloutId, snapshot: null, savedIn: workspaceSnapshot })]);
    expect(await containersOf(rolloutId)).toEqual([]);
    // Its workspace quota's loop device goes with it (a new user's `losetup -a` grew after each such kill).
    const loops = await execa('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE'], { reject: false });
    expect(loops.stdout.split('\n').filter((l) => l.includes(dirs.home))).toEqual([]);
    const store = await openStore(join(dirs.home, 'store'));
    expect(await store.getBranch(`${LINEAGE}@${rolloutId}`)).toBeNull();
    const { json } = await cli(['doctor']);
    const check = (json as { checks: { name: string; detail: string }[] }).checks.find((c) => c.name === 'sandboxes');
    expect(check?.detail ?? '').not.toContain(rolloutId);
  });
});
