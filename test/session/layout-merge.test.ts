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
    // A text note both changed holds both sides' lines, ours first; no copy beside it.
    expect(read('ours', 'memories/notes.md')).toBe('our notes\ntheir notes');
    expect(existsSync(join(dirOf('ours'), 'memories/notes.md.ours-r1'))).toBe(false);
    expect(report.conflicts.sort()).toEqual(['memories/MEMORY.md', 'memories/notes.md']);
    expect(report.merged).toEqual(['memories/notes.md']);
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

  it('keeps every line three runs appended to one note, whichever order the heads merge in', async () => {
    write('base', 'memories/notes.md', '- seed\n');
    write('ours', 'memories/notes.md', '- seed\n- ours\n');
    write('theirs', 'memories/notes.md', '- seed\n- theirs\n');
    await mergeLayouts({ ours: dirOf('ours'), theirs: dirOf('theirs'), base: dirOf('base'), dirs: ['memories'], rebuilt: [], tag: 'r1' });
    expect(read('ours', 'memories/notes.md')).toBe('- seed\n- ours\n- theirs\n');
    // A third run, started from the same base, merges the result.
    write('third', 'memories/notes.md', '- seed\n- third\n');
    await mergeLayouts({ ours: dirOf('third'), theirs: dirOf('ours'), base: dirOf('base'), dirs: ['memories'], rebuilt: [], tag: 'r3' });
    expect(read('third', 'memories/notes.md').split('\n').sort()).toEqual(['', '- ours', '- seed', '- theirs', '- third']);
  });

  it('keeps a binary note both changed as two files (ours beside theirs)', async () => {
    write('ours', 'memories/blob.bin', 'o\0ours');
    write('theirs', 'memories/blob.bin', 't\0theirs');
    write('base', 'memories/blob.bin', 'b\0base');
    const report = await mergeLayouts({ ours: dirOf('ours'), theirs: dirOf('theirs'), base: dirOf('base'), dirs: ['memories'], rebuilt: [], tag: 'r1' });
    expect(read('ours', 'memories/blob.bin')).toBe('t\0theirs');
    expect(read('ours', 'memories/blob.bin.ours-r1')).toBe('o\0ours');
    expect(report.merged).toEqual([]);
  });

  it("merges MEMORY.md entry by entry: a bullet each side added (with no raw memory behind it) stays", async () => {
    const head = (bullets: string[]): string =>
      ['# Memory', '', '<!-- mnemara:memory format=1 consolidated=2026-12-01T00:00:00.000Z producer=deterministic prompt=consolidate-v1 -->', '', '## Facts', '', ...bullets, ''].join('\n');
    const seed = '- The seed fact holds. <!-- id:m-00000001 src:r0 imp:3 at:2026-12-01T00:00:00.000Z -->';
    write('base', 'memories/MEMORY.md', head([seed]));
    write('ours', 'memories/MEMORY.md', head([seed, '- Our hand bullet: start with `make ours-up`. <!-- id:m-0000000a src:r1 imp:3 at:2026-12-01T00:00:01.000Z -->']));
    write('theirs', 'memories/MEMORY.md', head([seed, '- Their hand bullet: start with `make theirs-up`. <!-- id:m-0000000b src:r2 imp:3 at:2026-12-01T00:00:02.000Z -->']));
    const rebuilt = ['memories/MEMORY.md'];
    const report = await mergeLayouts({ ours: dirOf('ours'), theirs: dirOf('theirs'), base: dirOf('base'), dirs: ['memories'], memoryMd: 'memories/MEMORY.md', rebuilt, tag: 'r1' });
    const md = read('ours', 'memories/MEMORY.md');
    expect(md).toContain('make ours-up');
    expect(md).toContain('make theirs-up');
    expect(md).toContain('The seed fact holds.');
    expect(report.merged).toEqual(['memories/MEMORY.md']);
  });
});
