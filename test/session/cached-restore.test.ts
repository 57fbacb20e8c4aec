/**
 * Issue 15, item 3 through `runSession` with the real engine: a session from the lineage head starts from a
 * private copy of the cached workspace image (taken right after the previous session's restore) brought up to
 * the head, and what its agent sees is exactly what a normal restore of that head gives: every path with type,
 * mode, link count, size, mtime, owner, link target, content hash and hard-link groups, on a tree with a name
 * that is not UTF-8, hard links, dangling and directory symlinks, a read-only directory, an empty file. A cached
 * image changed on the host is not trusted (today's path), and without the cache nothing of it runs.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { cacheEnabled } from '../../src/session/cached-restore.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const root = process.getuid?.() === 0;

/** Everything a restore decides about the tree, then its digest: what two restores must agree on. */
const LISTING = [
  'cd /workspace',
  '{',
  "find . -mindepth 1 -printf '%y %m %n %s %T@ %U:%G %P -> %l\\n' | LC_ALL=C sort",
  'find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum',
  "find . -type f -links +1 -printf '%i %P\\n' | LC_ALL=C sort | awk '{g[$1]=g[$1] \" \" $2} END {for (k in g) print g[k]}' | LC_ALL=C sort",
  '} > /tmp/listing',
  'echo "digest $(sha256sum < /tmp/listing | cut -c1-64) lines $(wc -l < /tmp/listing)"',
  'cat /tmp/listing',
].join('\n');

/** The edits of the second session: three files changed, one deleted, one added, and a writer left behind. */
const EDITS = [
  'set -e',
  'echo "// edit" >> src/durations/parse.py',
  'echo more >> empty.txt',
  'printf x >> "$(printf "odd-\\377.txt")"',
  'rm README.md',
  'mkdir -p src/new && echo new > src/new/added.txt',
  // A process that outlives the command and writes after the snapshot: nothing it writes may reach the next run.
  'nohup bash -c "sleep 3; echo tampered > src/durations/__init__.py" >/dev/null 2>&1 &',
].join('\n');

/** A model that runs the command named by the task's first word and records what the listing printed. */
async function model(seen: string[]): Promise<MessagesServer> {
  const server = await startMessagesServer((req) => {
    const body = JSON.stringify(req.body);
    const results = lastToolResults(req);
    if (results.length > 0) {
      if (body.includes('List the tree')) seen.push(results[0]!.text);
      return turn(text('Done.'));
    }
    if (body.includes('Edit the project')) return turn(toolUse('bash', { command: EDITS }));
    if (body.includes('List the tree')) return turn(toolUse('bash', { command: LISTING }));
    return turn(text('Done.'));
  });
  cleanups.push(() => server.close());
  return server;
}

/** The odd entries a real checkout can hold, added to the scratch workspace. */
function addOddFiles(workspace: string): void {
  writeFileSync(Buffer.from(join(workspace, 'odd-\xff.txt'), 'latin1'), 'not utf-8\n');
  writeFileSync(join(workspace, 'empty.txt'), '');
  writeFileSync(join(workspace, 'shared.txt'), 'linked\n');
  linkSync(join(workspace, 'shared.txt'), join(workspace, 'shared-link.txt'));
  symlinkSync('does-not-exist', join(workspace, 'dangling'));
  symlinkSync('src', join(workspace, 'src-link'));
  writeFileSync(join(workspace, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  mkdirSync(join(workspace, 'ro'));
  writeFileSync(join(workspace, 'ro', 'kept.txt'), 'read only dir\n');
  chmodSync(join(workspace, 'ro'), 0o555);
}

function digestOf(output: string): string {
  const m = /digest ([0-9a-f]{64}) lines (\d+)/.exec(output);
  expect(m, output.slice(0, 300)).not.toBeNull();
  return `${m![1]} ${m![2]}`;
}

/** A scratch workspace with the odd files, the scripted model (`seen` gets its requests), and configs with the cache on and off. */
async function cachedSetup(): Promise<{ s: ReturnType<typeof scratch>; seen: string[]; config: ReturnType<typeof testConfig>; off: ReturnType<typeof testConfig> }> {
  const s = scratch();
  cleanups.push(s.cleanup);
  addOddFiles(s.workspace);
  const seen: string[] = [];
  const server = await model(seen);
  // A small quota keeps the images small; the cache is on.
  const env = { MNEMARA_SANDBOX_MAX_WORKSPACE_BYTES: String(256 * 1024 ** 2), MNEMARA_SANDBOX_WORKSPACE_CACHE_BYTES: String(1024 ** 3) };
  // `off`: the same, with the cache off (a normal restore to compare with).
  return { s, seen, config: testConfig(s.home, server.url, env), off: testConfig(s.home, server.url, { ...env, MNEMARA_SANDBOX_WORKSPACE_CACHE_BYTES: '0' }) };
}

describe.runIf(root)('a session from a cached workspace image', () => {
  it('sees exactly what a normal restore of the head gives, and a cached image changed on the host is not used', async () => {
    const { s, seen, config, off } = await cachedSetup();
    const run = (task: string, extra: { from?: string; lineage?: string; cache?: boolean } = {}): Promise<SessionResult> =>
      runSession({
        workspace: s.workspace,
        task,
        config: extra.cache === false ? off : config,
        lineage: extra.lineage ?? 'cached',
        ...(extra.from ? { from: extra.from } : {}),
      });

    const first = await run('Look around.');
    expect(first.timings.parts?.['restore.cached']).toBeUndefined(); // a fresh copy: no snapshot to cache
    const second = await run('Edit the project.');
    // No image yet: the whole tree, then the restored tree is cached.
    expect(second.timings.parts?.['restore.cached']).toBe(0);
    expect(second.timings.parts?.['restore.cache-write']).toBeGreaterThanOrEqual(0);
    await new Promise((r) => setTimeout(r, 3_500)); // the writer left behind has had its chance

    const third = await run('List the tree.');
    expect(third.start.snapshotId).toBe(second.head);
    expect(third.timings.parts?.['restore.cached']).toBe(1);
    const normal = await run('List the tree.', { from: second.head!, lineage: 'normal', cache: false });
    expect(normal.timings.parts?.['restore.cached']).toBeUndefined();
    expect(seen).toHaveLength(2);
    expect(digestOf(seen[0]!)).toBe(digestOf(seen[1]!));
    expect(seen[0]).toContain('src/new/added.txt');
    expect(seen[0]).not.toMatch(/ README\.md /);
    expect(seen[0]).toMatch(/dangling -> does-not-exist/);
    expect(seen[0]).toMatch(/^d 555 .* ro -> $/m);
    expect(seen[0]).toMatch(/ shared-link\.txt shared\.txt$/m); // one hard-link group

    // Change the cached image on the host (same size, other bytes): the next session must not trust it.
    const cacheDir = join(s.home, 'workspace-cache', 'cached');
    const [entry] = readdirSync(cacheDir).filter((n) => !n.startsWith('.'));
    const image = join(cacheDir, entry!, 'image.img');
    const mnt = mkdtempSync(join(tmpdir(), 'mnemara-cache-mnt-'));
    execFileSync('mount', ['-o', 'loop', image, mnt]);
    try {
      writeFileSync(join(mnt, 'run.sh'), '#!/bin/sh\necho HI\n');
    } finally {
      execFileSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
    const fourth = await run('List the tree.');
    expect(fourth.timings.parts?.['restore.cached']).toBe(0);
    expect(fourth.timings.parts?.['restore.refill']).toBeGreaterThanOrEqual(0);
    const normal2 = await run('List the tree.', { from: fourth.start.snapshotId!, lineage: 'normal2', cache: false });
    expect(normal2.timings.parts?.['restore.cached']).toBeUndefined();
    expect(digestOf(seen[2]!)).toBe(digestOf(seen[3]!));
  }, 600_000);

  it('gives two sessions started at once from one head each their own copy, both equal to a normal restore', async () => {
    const { s, seen, config, off } = await cachedSetup();
    await runSession({ workspace: s.workspace, task: 'Look around.', config, lineage: 'pair' });
    const filled = await runSession({ workspace: s.workspace, task: 'Edit the project.', config, lineage: 'pair' });
    expect(filled.timings.parts?.['restore.cached']).toBe(0);
    const both = await Promise.all([1, 2].map(() => runSession({ workspace: s.workspace, task: 'List the tree.', config, lineage: 'pair' })));
    for (const r of both) {
      expect(r.start.snapshotId).toBe(filled.head);
      expect(r.timings.parts?.['restore.cached']).toBe(1);
    }
    await runSession({ workspace: s.workspace, task: 'List the tree.', config: off, lineage: 'pair-normal', from: filled.head! });
    expect(seen).toHaveLength(3);
    expect(digestOf(seen[0]!)).toBe(digestOf(seen[2]!));
    expect(digestOf(seen[1]!)).toBe(digestOf(seen[2]!));
  }, 600_000);
});

describe('when the workspace cache is on', () => {
  it('runs only where the quota disk can exist: Docker, a quota, root, a cap above 0', () => {
    const base = testConfig('/tmp/mnemara-cache-gate', 'http://127.0.0.1:1', { MNEMARA_SANDBOX_WORKSPACE_CACHE_BYTES: String(1024 ** 3) });
    expect(cacheEnabled(base)).toBe(root);
    expect(cacheEnabled({ ...base, sandbox: { ...base.sandbox, maxWorkspaceBytes: 0 } })).toBe(false);
    expect(cacheEnabled({ ...base, sandbox: { ...base.sandbox, backend: 'local' } })).toBe(false);
    expect(cacheEnabled({ ...base, sandbox: { ...base.sandbox, workspaceCacheBytes: 0 } })).toBe(false);
    // Off unless asked for.
    expect(testConfig('/tmp/mnemara-cache-gate', 'http://127.0.0.1:1').sandbox.workspaceCacheBytes).toBe(0);
  });
});
