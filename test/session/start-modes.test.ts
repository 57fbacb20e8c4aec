/**
 * The other starts of step 1: `--memory-from` (a fresh copy of the code with a lineage's memory laid over it,
 * the CI case) and `--from` (an older snapshot than the head, whose newer lessons must not be lost).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { startMessagesServer, systemText, type MessagesServer } from '../support/messages-server.js';
import { commandsRun, scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let learn: SessionResult;

beforeAll(async () => {
  dirs = scratch();
  execFileSync('git', ['init', '-q'], { cwd: dirs.workspace }); // a git workspace: memory must stay out of git status
  server = await startMessagesServer(policy(FIX_BUG));
  learn = await runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config: testConfig(dirs.home, server.url), lineage: 'ci/main' });
}, 120_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('a git workspace', () => {
  it('gets the memory layout in .git/info/exclude, so git status inside the sandbox ignores it', async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'git-head');
    await store.restoreToDirectory(learn.head as string, out, { paths: ['.git'] });
    const exclude = readFileSync(join(out, '.git', 'info', 'exclude'), 'utf8').split('\n');
    expect(exclude).toEqual(expect.arrayContaining(['/memories/', '/sessions/']));
  });
});

describe('--memory-from', () => {
  it("runs on a fresh copy of the code with the lineage's memory, and advances that lineage", async () => {
    const before = server.messageRequests.length;
    const r = await runSession({
      workspace: dirs.workspace,
      task: FIX_BUG.task,
      config: testConfig(dirs.home, server.url),
      lineage: 'ci/main',
      memoryFrom: 'ci/main',
    });
    expect(r.start).toEqual({ kind: 'memory-from', snapshotId: learn.head, headAtStart: learn.head });
    expect(r.outcome).toBe('completed');
    // The code was fresh (the bug was there again: the policy had to fix it), the lesson came along.
    const first = server.messageRequests[before]!;
    expect(systemText(first)).toContain('./scripts/check.sh');
    expect(readFileSync(r.transcriptPath!, 'utf8')).toContain('total += int(number)');
    expect(commandsRun(r.transcriptPath!)).not.toContain('python3 -m unittest discover tests');
    expect(commandsRun(r.transcriptPath!)).toContain('./scripts/check.sh');
    const store = await openStore(join(dirs.home, 'store'));
    expect(await store.getHead('ci/main')).toBe(r.head);
    // Its workspace was the checkout's copy, not its parent's tree (the head, which gave the memory): the manifest
    // says so, or apply took the parent for the tree the run started from (runBase). So does a fresh start's.
    const ws = await store.get(r.workspaceSnapshot as string);
    expect(ws).toMatchObject({ parent: learn.head, workspaceFrom: 'host' });
    expect((await store.get(learn.workspaceSnapshot as string)).workspaceFrom).toBe('host');
  }, 120_000);

  it('refuses a lineage without a head, before starting anything', async () => {
    await expect(
      runSession({ workspace: dirs.workspace, task: 'x', config: testConfig(dirs.home, server.url), memoryFrom: 'nothing/here' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('--from an older snapshot', () => {
  it("starts from that snapshot's tree and keeps the lessons of the newer head", async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const head = await store.getHead('ci/main');
    const r = await runSession({
      workspace: dirs.workspace,
      task: FIX_BUG.task,
      config: testConfig(dirs.home, server.url),
      lineage: 'ci/main',
      from: learn.workspaceSnapshot as string,
    });
    expect(r.start).toEqual({ kind: 'snapshot', snapshotId: learn.workspaceSnapshot, headAtStart: head });
    expect(r.outcome).toBe('completed');
    expect((await store.get(r.workspaceSnapshot as string)).workspaceFrom).toBeUndefined();
    const out = join(dirs.root, 'from-head');
    await store.restoreToDirectory(r.head as string, out, { paths: ['memories', 'sessions'] });
    const { entries } = parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8'));
    const sources = new Set(entries.flatMap((e) => e.sources));
    // All three rollouts of the lineage: the first, the --memory-from one (newer than the start), and this one.
    const manifest = await store.get(r.head as string);
    expect(manifest.rolloutIds.length).toBeGreaterThanOrEqual(3);
    expect(sources.has(learn.rolloutId)).toBe(true);
    expect(sources.has(r.rolloutId)).toBe(true);
  }, 120_000);
});

describe('memory.generate and memory.read off', () => {
  it('leaves the rollout pending at the workspace snapshot, and a later session extracts it; no memory in its prompt', async () => {
    const quiet = await runSession({
      workspace: dirs.workspace,
      task: FIX_BUG.task,
      config: testConfig(dirs.home, server.url, { MNEMARA_MEMORY_GENERATE: 'false' }),
      lineage: 'quiet',
    });
    expect(quiet).toMatchObject({ outcome: 'completed', pending: true, memorySnapshot: null, head: quiet.workspaceSnapshot });
    expect(quiet.timings['memory-pipeline']).toBeUndefined();

    const before = server.messageRequests.length;
    const next = await runSession({
      workspace: dirs.workspace,
      task: FIX_BUG.task,
      config: testConfig(dirs.home, server.url, { MNEMARA_MEMORY_READ: 'false' }),
      lineage: 'quiet',
    });
    expect(systemText(server.messageRequests[before]!)).not.toContain('Memory from earlier runs');
    expect(next.pending).toBe(false);
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'quiet-head');
    await store.restoreToDirectory(next.head as string, out, { paths: ['memories'] });
    const { entries } = parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8'));
    expect(new Set(entries.flatMap((e) => e.sources))).toEqual(new Set([quiet.rolloutId, next.rolloutId]));
  }, 120_000);
});
