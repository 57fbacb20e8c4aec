/**
 * Issue 10, new-user trial (medium): after a SIGKILL during phase 1 the rollout was on the head but "pending
 * (not extracted yet)", while `doctor` said every rollout was fine and `recover` did nothing. Doctor now names
 * the pending rollouts, and recover runs the pipeline for them: afterwards the head holds their rollout summary.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'killed-in-phase1';
const dirs = scratch();
const servers: MessagesServer[] = [];
let rolloutId: string | undefined;

afterAll(async () => {
  if (rolloutId) await removeSessionContainers(rolloutId);
  await Promise.all(servers.map((s) => s.close()));
  dirs.cleanup();
});

describe('a session killed during its memory pipeline', () => {
  it('doctor names its pending rollout, and recover extracts it onto the head', { timeout: 300_000 }, async () => {
    const server = await startMessagesServer([
      turn(text('Running the tests.'), toolUse('bash', { command: 'ls && echo "1 failing: GET /users returns 500"' })),
      turn(text('The users route fails; I stopped there.')),
    ]);
    servers.push(server);
    const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
      env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: server.url, WORKSPACE: dirs.workspace, LINEAGE, TASK: 'run the tests', KILL_AT: 'memory-pipeline:start' },
      reject: false,
    });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    rolloutId = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
    const store = await openStore(join(dirs.home, 'store'));
    const head = (await store.getHead(LINEAGE)) as string;
    expect((await store.get(head)).rolloutIds).toContain(rolloutId);

    const env = { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_MEMORY_EXTRACTOR: 'deterministic' };
    const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', CLI, ...args, '--json'], { env, extendEnv: false, reject: false });
    type Doctor = { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
    const before = (JSON.parse((await cli('doctor')).stdout) as Doctor).checks.find((c) => c.name === 'pending');
    expect(before?.ok).toBe(false);
    expect(before?.detail).toContain(rolloutId);
    expect(before?.fix).toContain('mnemara recover');

    const r = await cli('recover');
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { results: { lineage: string; extracted?: string[]; pending: string[]; head: string | null }[] };
    const result = out.results.find((x) => x.lineage === LINEAGE);
    expect(result?.extracted).toEqual([rolloutId]);
    expect(result?.pending).toEqual([]);
    const now = (await store.getHead(LINEAGE)) as string;
    expect(now).not.toBe(head);
    const dir = join(dirs.root, 'after');
    await store.restoreToDirectory(now, dir, { paths: ['memories'] });
    expect(existsSync(join(dir, 'memories', 'rollout_summaries', `${rolloutId}.md`))).toBe(true);
    const after = (JSON.parse((await cli('doctor')).stdout) as Doctor).checks.find((c) => c.name === 'pending');
    expect(after?.ok).toBe(true);
    expect(JSON.parse((await cli('recover')).stdout)).toMatchObject({ results: [] });
  });
});
