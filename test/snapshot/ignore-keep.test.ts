/**
 * A repository's `snapshot.ignore` of `memories`, `sessions` or `*.md` left the run's transcript and MEMORY.md out
 * of every snapshot of its lineage: the head named the rollout and held none of it (round 24). The memory layout is
 * now kept by `!` patterns appended to the ignore list (`keepLayoutInSnapshots`); the last pattern that applies
 * decides, as in gitignore, so a per-call pattern after them (a checkout that lacks the layout) still leaves it out.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepLayoutInSnapshots } from '../../src/memory/layout.js';
import { compileIgnore } from '../../src/snapshot/ignore.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

describe('ignore patterns and the memory layout', () => {
  it('a ! pattern keeps what it names and everything under it; the last pattern that applies decides', () => {
    const hostile = keepLayoutInSnapshots(['memories', 'sessions', '*.md', 'node_modules', '**/cache']);
    const ignored = compileIgnore(hostile);
    for (const p of ['memories', 'memories/MEMORY.md', 'memories/raw_memories/r1.md', 'sessions', 'sessions/r1.jsonl', 'memories/cache']) expect(ignored(p), p).toBe(false);
    for (const p of ['README.md', 'docs/a.md', 'node_modules', 'pkg/memories', 'src/cache']) expect(ignored(p), p).toBe(true);
    // A later plain pattern still leaves the layout out (createOnHead's inherited directories).
    expect(compileIgnore([...hostile, '/memories'])('memories/MEMORY.md')).toBe(false);
    expect(compileIgnore([...hostile, '/memories'])('memories')).toBe(true);
    // Another layout is kept instead.
    const custom = compileIgnore(keepLayoutInSnapshots(['agents', '*.md'], { memoriesDir: 'agents/reviewer/memories', sessionsDir: 'agents/reviewer/sessions' }));
    expect(custom('agents/reviewer/memories/MEMORY.md')).toBe(false);
    expect(custom('agents/other/notes.md')).toBe(true);
  });

  it('patterns without ! work as before', () => {
    const ignored = compileIgnore(['node_modules/.cache', '/build', '*.pyc']);
    expect(ignored('packages/a/node_modules/.cache')).toBe(true);
    expect(ignored('build')).toBe(true);
    expect(ignored('src/build')).toBe(false);
    expect(ignored('x/y.pyc')).toBe(true);
  });

  it('a store opened with a repository\'s hostile ignore and the layout kept snapshots the transcript and MEMORY.md', async () => {
    const dir = tempDir();
    for (const [rel, text] of [['app.py', 'print(1)\n'], ['README.md', '# app\n'], ['memories/MEMORY.md', '# Memory\n- run `python3 app.py`\n'], ['sessions/r1.jsonl', '{"type":"user"}\n']] as const) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    const store = await openStore(tempDir(), { ignore: keepLayoutInSnapshots(['memories', 'sessions', '*.md']) });
    const m = await store.create({ dir }, { lineage: 'l', kind: 'workspace', parent: null });
    const out = tempDir();
    await store.restoreToDirectory(m.id, out);
    const paths = new Set([...(await store.tree(m.id, { hashContent: false })).walk()].map((e) => e.path));
    expect(paths.has('memories/MEMORY.md')).toBe(true);
    expect(paths.has('sessions/r1.jsonl')).toBe(true);
    expect(paths.has('README.md')).toBe(false);
    expect(paths.has('app.py')).toBe(true);
  });

  // Trial 25 N1: with the layout under a folder (`.mn/memories`, `.mn/sessions`) and a user's `["*", "!src"]`, the
  // walk pruned `.mn` before it reached the kept folders: the run's transcript was in no workspace snapshot.
  it('a nested layout is kept when the user ignores the folder above it, and only the layout of that folder', async () => {
    const layout = { memoriesDir: '.mn/memories', sessionsDir: '.mn/sessions' };
    const patterns = keepLayoutInSnapshots(['*', '!src'], layout);
    const ignored = compileIgnore(patterns);
    for (const p of ['.mn', '.mn/memories', '.mn/memories/MEMORY.md', '.mn/sessions/r1.jsonl', 'src', 'src/a.py']) expect(ignored(p), p).toBe(false);
    for (const p of ['.mn/other.txt', '.mn/cache', '.mn/cache/x', 'README.md', 'build']) expect(ignored(p), p).toBe(true);
    // A user pattern that never ignored the folder above adds nothing: its other entries stay as the user had them.
    expect(keepLayoutInSnapshots(['*.log'], layout)).toEqual(['*.log', '!/.mn/memories', '!/.mn/sessions']);
    const dir = tempDir();
    for (const [rel, text] of [['src/a.py', 'print(1)\n'], ['.mn/memories/MEMORY.md', '# Memory\n'], ['.mn/sessions/r1.jsonl', '{"type":"user"}\n'], ['.mn/other.txt', 'x\n'], ['README.md', '# r\n']] as const) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    const store = await openStore(tempDir(), { ignore: patterns });
    const m = await store.create({ dir }, { lineage: 'nested', kind: 'workspace', parent: null });
    const paths = [...(await store.tree(m.id, { hashContent: false })).walk()].map((e) => e.path).sort();
    expect(paths).toEqual(['.mn', '.mn/memories', '.mn/memories/MEMORY.md', '.mn/sessions', '.mn/sessions/r1.jsonl', 'src', 'src/a.py']);
  });
});
