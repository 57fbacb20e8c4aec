/**
 * `mnemara lineage` (issue 11 item 6, issue 10 item 2): list, show, reset, branch, delete with --json, and the
 * way out of a damaged head: one byte flipped in the head's layer makes `run` fail (exit 3, the hint names
 * `lineage reset`); one `lineage reset` to the parent repairs it, the damaged head is kept as a branch, and the
 * next `run` works. Branches survive `snapshot prune` until deleted. Real Docker, scripted model.
 */
import { openSync, readSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { FIX_BUG, ADD_DAYS, policy } from '../../examples/two-runs/scripted-model.js';
import { startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from '../session/harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
const L = 'ci/main';

function cli(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: server.url, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ...env },
    reject: false,
  });
}

beforeAll(async () => {
  dirs = scratch();
  server = await startMessagesServer(policy(FIX_BUG));
  const config = testConfig(dirs.home, server.url);
  await runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config, lineage: L });
  await runSession({ workspace: dirs.workspace, task: ADD_DAYS.task, config, lineage: L });
}, 900_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('mnemara lineage', () => {
  it('lists the lineage with head, size, last run; shows its runs with outcome and lessons', async () => {
    const list = await cli(['lineage', 'list', '--json']);
    expect(list.exitCode).toBe(0);
    const [l] = (JSON.parse(list.stdout) as { lineages: { name: string; head: string; headBytes: number; lastRun: { rolloutId: string }; branches: unknown[] }[] }).lineages;
    expect(l!.name).toBe(L);
    expect(l!.headBytes).toBeGreaterThan(0);
    expect(l!.lastRun.rolloutId).toMatch(/^\d{8}T/);
    // `mnemara lineage` alone lists (trial 21 F3: it printed the help and exited 2).
    const bare = await cli(['lineage', '--json']);
    expect(bare.exitCode).toBe(0);
    expect(JSON.parse(bare.stdout)).toEqual(JSON.parse(list.stdout));
    // A lineage name where a command goes says which command was meant (it said "too many arguments for 'list'").
    const word = await cli(['lineage', L, '--json']);
    expect(word.exitCode).toBe(2);
    const err = (JSON.parse(word.stdout) as { error: { code: string; message: string; hint: string } }).error;
    expect(err.code).toBe('USAGE');
    expect(err.message).toContain(`unknown lineage command '${L}'`);
    expect(err.hint).toBe(`to see the history of lineage ${L}: mnemara lineage show ${L}`);
    const show = await cli(['lineage', 'show', L, '--json']);
    expect(show.exitCode).toBe(0);
    const h = JSON.parse(show.stdout) as { runs: { rolloutId: string; outcome: string | null; lessons: string[] }[]; chain: { id: string }[] };
    expect(h.runs).toHaveLength(2);
    expect(h.runs.every((r) => r.outcome !== null)).toBe(true);
    expect(h.runs.some((r) => r.lessons.length > 0)).toBe(true);
    expect(h.chain.length).toBeGreaterThanOrEqual(2);
    const human = await cli(['lineage', 'show', L]);
    expect(human.stdout).toContain('runs (newest first)');
  }, 300_000);

  it('repairs a head with one byte flipped in its layer in one reset, and the next run works', async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const head = (await store.getHead(L)) as string;
    const m = await store.get(head);
    const parent = m.parent as string;
    // Flip one byte in the middle of the head's own (newest) layer.
    const blob = store.blobs.pathOf(m.layers[m.layers.length - 1]!.digest);
    const fd = openSync(blob, 'r+');
    const b = Buffer.alloc(1);
    const at = Math.floor(m.layers[m.layers.length - 1]!.compressedBytes / 2);
    readSync(fd, b, 0, 1, at);
    b[0] = b[0]! ^ 0xff;
    writeSync(fd, b, 0, 1, at);
    closeSync(fd);

    const broken = await cli(['run', '-w', dirs.workspace, '--lineage', L, '--task', FIX_BUG.task]);
    expect(broken.exitCode).toBe(3);
    expect(broken.stderr).toContain('mnemara lineage reset');
    expect(broken.stderr).not.toMatch(/\n\s+at .*\(/); // no stack trace

    const reset = await cli(['lineage', 'reset', L, parent, '--json']);
    expect(reset.exitCode).toBe(0);
    const r = JSON.parse(reset.stdout) as { from: string; to: string; keptAs: string };
    expect(r).toMatchObject({ from: head, to: parent });
    expect(r.keptAs).toMatch(/^ci\/main@reset-/);
    expect(await store.getHead(L)).toBe(parent);
    expect(await store.getBranch(r.keptAs)).toBe(head);

    const next = await cli(['run', '-w', dirs.workspace, '--lineage', L, '--task', FIX_BUG.task, '--json']);
    expect(next.exitCode).toBe(0);
    const res = JSON.parse(next.stdout) as { head: string; start: { snapshotId: string }; pending: boolean };
    expect(res.start.snapshotId).toBe(parent);
    expect(res.pending).toBe(false);
    expect(await store.getHead(L)).toBe(res.head);
  }, 300_000);

  it('creates and deletes branches; prune keeps a branch until it is deleted', async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const head = (await store.getHead(L)) as string;
    const oldest = (await store.list({ lineage: L }))[0]!.id;
    const made = await cli(['lineage', 'branch', `${L}@keep-me`, oldest, '--json']);
    expect(made.exitCode).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({ name: `${L}@keep-me`, snapshot: oldest });
    expect((await cli(['lineage', 'branch', `${L}@keep-me`, head])).exitCode).toBe(2); // exists already
    expect((await cli(['lineage', 'branch', 'no-at-sign'])).exitCode).toBe(2);

    const listed = await cli(['snapshot', 'list', '--json']);
    expect(listed.exitCode, `${listed.stderr}\n${listed.stdout.slice(0, 500)}`).toBe(0);
    expect((JSON.parse(listed.stdout) as { branches: Record<string, string> }).branches[`${L}@keep-me`]).toBe(oldest);

    expect((await cli(['snapshot', 'prune', '--keep', '0', '--json'])).exitCode).toBe(0);
    await expect(store.get(oldest)).resolves.toMatchObject({ id: oldest });

    const del = await cli(['lineage', 'delete', `${L}@keep-me`, '--json']);
    expect(del.exitCode).toBe(0);
    expect((await cli(['lineage', 'delete', `${L}@keep-me`])).exitCode).toBe(2);
    expect((await cli(['snapshot', 'prune', '--keep', '0', '--json'])).exitCode).toBe(0);
    await expect(store.get(oldest)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await store.getHead(L)).toBe(head);
  }, 600_000);
});
