import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeLayouts } from '../../src/session/layout-merge.js';

let root: string;
const dirOf = (name: string): string => join(root, name);
function write(tree: string, rel: string, content: string): void {
  const p = join(dirOf(tree), rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
}
const read = (tree: string, rel: string): string => readFileSync(join(dirOf(tree), rel), 'utf8');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mnemara-merge-'));
  for (const tree of ['base', 'ours', 'theirs']) {
    write(tree, 'memories/MEMORY.md', 'base handbook');
    write(tree, 'memories/notes.md', 'base notes');
    write(tree, 'memories/old.md', 'old');
    write(tree, 'sessions/r0.jsonl', 'r0');
  }
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('mergeLayouts', () => {
  it('keeps both sessions\' rollouts, takes their one-sided changes and rebuilds-to-be from theirs', async () => {
    write('ours', 'sessions/r1.jsonl', 'ours r1');
    write('ours', 'memories/raw_memories/r1.md', 'our lesson');
    write('ours', 'memories/MEMORY.md', 'our handbook');
    write('theirs', 'sessions/r2.jsonl', 'their r2');
    write('theirs', 'memories/raw_memories/r2.md', 'their lesson');
    write('theirs', 'memories/MEMORY.md', 'their handbook');
    rmSync(join(dirOf('theirs'), 'memories/old.md'));
    write('ours', 'memories/notes.md', 'our notes');
    write('theirs', 'memories/notes.md', 'their notes');

    const report = await mergeLayouts({
      ours: dirOf('ours'),
      theirs: dirOf('theirs'),
      base: dirOf('base'),
      dirs: ['memories', 'sessions'],
      rebuilt: ['memories/MEMORY.md'],
      tag: 'r1',
    });

    expect(read('ours', 'sessions/r1.jsonl')).toBe('ours r1');
    expect(read('ours', 'sessions/r2.jsonl')).toBe('their r2');
    expect(read('ours', 'memories/raw_memories/r1.md')).toBe('our lesson');
    expect(read('ours', 'memories/raw_memories/r2.md')).toBe('their lesson');
    expect(read('ours', 'memories/MEMORY.md')).toBe('their handbook');
    expect(existsSync(join(dirOf('ours'), 'memories/MEMORY.md.ours-r1'))).toBe(false);
    expect(existsSync(join(dirOf('ours'), 'memories/old.md'))).toBe(false);
    expect(read('ours', 'memories/notes.md')).toBe('their notes');
    expect(read('ours', 'memories/notes.md.ours-r1')).toBe('our notes');
    expect(report.conflicts.sort()).toEqual(['memories/MEMORY.md', 'memories/notes.md']);
    expect(report.fromTheirs.sort()).toEqual(['memories/old.md', 'memories/raw_memories/r2.md', 'sessions/r2.jsonl']);
  });

  it('treats a missing base as empty: everything of theirs arrives, our files stay', async () => {
    rmSync(dirOf('ours'), { recursive: true });
    write('ours', 'sessions/r1.jsonl', 'ours r1');
    const report = await mergeLayouts({
      ours: dirOf('ours'),
      theirs: dirOf('theirs'),
      base: null,
      dirs: ['memories', 'sessions'],
      rebuilt: [],
      tag: 'r1',
    });
    expect(read('ours', 'sessions/r1.jsonl')).toBe('ours r1');
    expect(read('ours', 'sessions/r0.jsonl')).toBe('r0');
    expect(read('ours', 'memories/MEMORY.md')).toBe('base handbook');
    expect(report.conflicts).toEqual([]);
  });
});
