/**
 * A session killed (SIGKILL) during a tool call, before its workspace snapshot, leaves the agent's work only in
 * its still-running container (issue 10). `mnemara doctor` names that container and the command that recovers
 * it; `mnemara recover` snapshots its /workspace as the branch LINEAGE@<rollout-id> (and, the lineage having no
 * head yet, as the base of its first head), adopts the transcript, and removes the container. A second recover
 * finds nothing left to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { runSession } from '../../src/session.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'stranded';
const WORK = 'def total(xs):\n    return sum(xs)  # written by the killed session\n';
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let rolloutId: string;
let nextRollout: string | undefined;
let nextServer: MessagesServer | undefined;
let containersAfterKill: { State: string; Names: string[] }[];

const containersOf = async (id: string) => dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.session}=${id}`] } });

/**
 * Runs the CLI on the test's home. `offline`: no model access at all (no key, no base URL, the extractor left at
 * `auto`, which is then the deterministic one), as a new user without a key runs `recover`.
 */
async function cli(args: string[], offline = false): Promise<{ exitCode: number; json: unknown; stderr: string }> {
  const model = offline ? {} : { MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url };
  const env = { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...model };
  const r = await execa(process.execPath, ['--import', 'tsx', CLI, ...args, '--json'], { env, extendEnv: false, reject: false });
  return { exitCode: r.exitCode ?? -1, json: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

/** Runs a session in a child process on `lineage` that writes WORK and is SIGKILLed during its second tool call. */
async function killDuringToolCall(lineage: string): Promise<{ rolloutId: string; server: MessagesServer }> {
  const scripted = await startMessagesServer([
    turn(text('Writing the helper.'), toolUse('bash', { command: `mkdir -p src && printf '%s' '${WORK}' > src/total.py && echo written` })),
    // The session is killed while this call runs.
    turn(text('Running the long checks.'), toolUse('bash', { command: 'sleep 120' })),
    turn(text('done')),
  ]);
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: scripted.url, WORKSPACE: dirs.workspace, LINEAGE: lineage, TASK: 'add a total helper', KILL_AT: 'tool:start#2' },
    reject: false,
  });
  const id = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  expect(child.signal).toBe('SIGKILL');
  return { rolloutId: id, server: scripted };
}

beforeAll(async () => {
  dirs = scratch();
  ({ rolloutId, server } = await killDuringToolCall(LINEAGE));
  containersAfterKill = await containersOf(rolloutId);
}, 240_000);

afterAll(async () => {
  for (const id of [rolloutId, nextRollout]) if (id) await removeSessionContainers(id);
  await server?.close();
  await nextServer?.close();
  dirs?.cleanup();
});

describe('a session killed during a tool call, before its workspace snapshot', () => {
  it('left its container running, and doctor names it with the command that recovers it', async () => {
    expect(containersAfterKill.map((c) => c.State)).toEqual(['running']);
    const { json } = await cli(['doctor']);
    const check = (json as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'sandboxes');
    expect(check?.ok).toBe(false);
    expect(check?.detail).toContain(rolloutId);
    expect(check?.detail).toContain(LINEAGE);
    expect(check?.fix).toContain('mnemara recover');
  });

  it('recover, without any model access, snapshots its /workspace as a branch, adopts the transcript and removes the container', async () => {
    // No key and no endpoint: the deterministic extractor needs neither (new-user trial: exit 2 "No Anthropic API key").
    const r = await cli(['recover'], true);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json as { rescued: { rolloutId: string; snapshot: string | null }[]; results: { lineage: string; adopted: string[]; branches: { name: string; snapshot: string }[]; head: string | null }[] };
    expect(out.rescued).toEqual([expect.objectContaining({ rolloutId, snapshot: expect.any(String) })]);
    expect(await containersOf(rolloutId)).toEqual([]);
    // Its workspace disk's loop device (named after the container) is detached too.
    const name = containersAfterKill[0]!.Names[0]!.replace(/^\//, '');
    const loops = await execa('losetup', ['--list', '--noheadings', '--output', 'BACK-FILE'], { reject: false });
    expect(loops.stdout).not.toContain(name);
    const result = out.results.find((x) => x.lineage === LINEAGE)!;
    expect(result.adopted).toEqual([rolloutId]);
    const store = await openStore(join(dirs.home, 'store'));
    const branch = await store.getBranch(`${LINEAGE}@${rolloutId}`);
    expect(branch).toBe(out.rescued[0]!.snapshot);
    const restored = join(dirs.root, 'branch');
    await store.restoreToDirectory(branch as string, restored);
    expect(readFileSync(join(restored, 'src', 'total.py'), 'utf8')).toBe(WORK);
    // The lineage had no head: the rescued work is its base, with the adopted rollout in its memory.
    const head = join(dirs.root, 'head');
    await store.restoreToDirectory(result.head as string, head);
    expect(readFileSync(join(head, 'src', 'total.py'), 'utf8')).toBe(WORK);
    expect(existsSync(join(head, 'sessions', `${rolloutId}.jsonl`))).toBe(true);
  });

  it('a second recover finds nothing, and doctor no longer warns about the sandbox', async () => {
    const r = await cli(['recover']);
    expect(r.json).toMatchObject({ rescued: [], results: [] });
    const { json } = await cli(['doctor']);
    const check = (json as { checks: { name: string; detail: string }[] }).checks.find((c) => c.name === 'sandboxes');
    expect(check?.detail ?? '').not.toContain(rolloutId);
  });
});

describe('the next session on the lineage of a session killed during a tool call', () => {
  it('snapshots the stranded sandbox, adopts the rollout and names its work as a branch', async () => {
    const killed = await killDuringToolCall('stranded-next');
    nextRollout = killed.rolloutId;
    nextServer = killed.server;
    expect((await containersOf(killed.rolloutId)).map((c) => c.State)).toEqual(['running']);
    const next = await runSession({ workspace: dirs.workspace, task: 'say hello', config: testConfig(dirs.home, nextServer.url), lineage: 'stranded-next' });
    expect(await containersOf(killed.rolloutId)).toEqual([]);
    expect(next.adopted).toContain(killed.rolloutId);
    const store = await openStore(join(dirs.home, 'store'));
    const branch = await store.getBranch(`stranded-next@${killed.rolloutId}`);
    expect(branch).not.toBeNull();
    // The run's result names where the adopted code is (trial 4: the summary said only "adopted 1").
    expect(next.adoptedBranches).toEqual([{ name: `stranded-next@${killed.rolloutId}`, snapshot: branch }]);
    const restored = join(dirs.root, 'next-branch');
    await store.restoreToDirectory(branch as string, restored, { paths: ['src'] });
    expect(readFileSync(join(restored, 'src', 'total.py'), 'utf8')).toBe(WORK);
  }, 240_000);
});
