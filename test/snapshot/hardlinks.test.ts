/**
 * Hard links inside a packed tree (issue 9, item 4: uv and pnpm fill trees with them) come back as hard links:
 * from a host directory, from a tar stream like the sandbox's, through delta layers, squashing, `--path`
 * restores and diffs. A file whose other link lies outside the tree is packed as a plain file, and a tar
 * link to anything the archive did not write first is refused.
 */
import { linkSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { directoryTar } from '../../src/snapshot/dir-tar.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { diffSnapshots } from '../../src/snapshot/diff.js';
import { readTar } from '../../src/snapshot/tar-read.js';
import { UnsafeArchiveError } from '../../src/snapshot/errors.js';
import { describeTree, tempDir } from './helpers.js';
import { buildTar } from './tar-builder.js';

/** The tree's hard-link groups: sets of paths (sorted) that share an inode, as a sorted list of `a=b=c`. */
function linkGroups(root: string, paths: string[]): string[] {
  const byIno = new Map<number, string[]>();
  for (const p of paths) {
    const st = lstatSync(join(root, p));
    byIno.set(st.ino, [...(byIno.get(st.ino) ?? []), p]);
  }
  return [...byIno.values()].filter((g) => g.length > 1).map((g) => g.sort().join('=')).sort();
}

const PATHS = ['a.txt', 'pkg/b.txt', 'pkg/deep/c.txt', 'solo.txt', 'z-other.txt'];

/** Snapshots `src` onto lineage `l`, moves the head, and checks the restore has the same content and link groups. */
async function step(store: DirectoryStore, src: string, paths: string[]): Promise<string> {
  const head = await store.getHead('l');
  const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
  await store.advanceHead('l', head, m.id);
  expect(await verifySnapshots(store, m.id)).toEqual([{ id: m.id, ok: true }]);
  const out = join(tempDir(), 'out');
  await store.restoreToDirectory(m.id, out);
  expect(describeTree(out)).toEqual(describeTree(src));
  expect(linkGroups(out, paths)).toEqual(linkGroups(src, paths));
  return m.id;
}

/** Entry types and link targets of a tar stream. */
async function tarEntries(stream: NodeJS.ReadableStream): Promise<Array<[string, string, string?]>> {
  const out: Array<[string, string, string?]> = [];
  await readTar(stream as never, async (e) => {
    out.push(e.linkpath ? [e.path, e.type, e.linkpath] : [e.path, e.type]);
    e.resume();
  });
  return out;
}

describe('hard links inside the tree', () => {
  it('come back as hard links from a host directory, through deltas that change, move and break them', async () => {
    const src = tempDir();
    const outside = tempDir();
    mkdirSync(join(src, 'pkg/deep'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'shared content');
    linkSync(join(src, 'a.txt'), join(src, 'pkg/b.txt'));
    linkSync(join(src, 'a.txt'), join(src, 'pkg/deep/c.txt'));
    writeFileSync(join(src, 'solo.txt'), 'linked from outside the tree');
    linkSync(join(src, 'solo.txt'), join(outside, 'elsewhere.txt'));
    writeFileSync(join(src, 'z-other.txt'), 'plain');
    const store = await openStore(tempDir());
    const states: Array<[string, Record<string, string>, string[]]> = [];
    const record = async (): Promise<void> => {
      states.push([await step(store, src, PATHS.filter((p) => { try { lstatSync(join(src, p)); return true; } catch { return false; } })), describeTree(src), linkGroups(src, PATHS.filter((p) => { try { lstatSync(join(src, p)); return true; } catch { return false; } }))]);
    };
    await record();
    expect(linkGroups(src, PATHS)).toEqual(['a.txt=pkg/b.txt=pkg/deep/c.txt']);
    // The layer holds the content once: the other two paths are tar hard-link entries naming the first.
    const entries = await tarEntries(await store.exportTar(states[0]![0]));
    expect(entries.filter((e) => e[1] === 'Link')).toEqual([
      ['pkg/b.txt', 'Link', 'a.txt'],
      ['pkg/deep/c.txt', 'Link', 'a.txt'],
    ]);
    // The file whose second link is outside the tree is a plain file in the snapshot.
    expect(entries.find((e) => e[0] === 'solo.txt')?.[1]).toBe('File');

    writeFileSync(join(src, 'pkg/b.txt'), 'changed through one link'); // in place: all three change
    await record();
    rmSync(join(src, 'a.txt')); // the group's first path goes: pkg/b.txt carries the content now
    await record();
    rmSync(join(src, 'pkg/deep/c.txt'));
    writeFileSync(join(src, 'pkg/deep/c.txt'), readFileSync(join(src, 'pkg/b.txt'))); // a copy, no longer a link
    linkSync(join(src, 'z-other.txt'), join(src, 'a.txt')); // a new group whose first path sorts before the old one
    await record();

    const m = await store.get((await store.getHead('l'))!);
    expect(m.layers.map((l) => l.delta)).toEqual([false, true, true, true]);
    for (const [id, tree, groups] of states) {
      const out = join(tempDir(), 'again');
      await store.restoreToDirectory(id, out);
      expect(describeTree(out)).toEqual(tree);
      expect(linkGroups(out, Object.keys(tree).filter((p) => tree[p]!.startsWith('file')))).toEqual(groups);
    }
    // Squashed into one layer, the links stay links.
    const squashed = await store.squashLayers(m);
    expect(squashed.delta).toBe(false);
  });

  it('come back as hard links from a tar stream like the sandbox sends (and the local backend writes)', async () => {
    const src = tempDir();
    mkdirSync(join(src, '.venv/lib'), { recursive: true });
    writeFileSync(join(src, '.venv/lib/mod.py'), 'print(1)\n');
    linkSync(join(src, '.venv/lib/mod.py'), join(src, 'mod-link.py'));
    const entries = await tarEntries(directoryTar(src, { ignore: () => false, onSkip: () => {} }));
    expect(entries.filter((e) => e[1] === 'Link')).toEqual([['./mod-link.py', 'Link', './.venv/lib/mod.py']]);

    const store = await openStore(tempDir());
    const m = await store.create({ tar: directoryTar(src, { ignore: () => false, onSkip: () => {} }) }, { lineage: 't', kind: 'workspace' });
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
    expect(linkGroups(out, ['.venv/lib/mod.py', 'mod-link.py'])).toEqual(['.venv/lib/mod.py=mod-link.py']);
  });

  it('a --path restore and a diff handle a link whose target is outside the paths restored', async () => {
    const src = tempDir();
    mkdirSync(join(src, 'a-notes'));
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'a-notes/n.md'), 'note kept in two places');
    linkSync(join(src, 'a-notes/n.md'), join(src, 'memories/n.md')); // the link sorts after its target
    const store = await openStore(tempDir());
    const first = await store.create({ dir: src }, { lineage: 'p', kind: 'workspace' });
    const out = join(tempDir(), 'mem');
    await store.restoreToDirectory(first.id, out, { paths: ['memories'] });
    expect(readFileSync(join(out, 'memories/n.md'), 'utf8')).toBe('note kept in two places');

    writeFileSync(join(src, 'a-notes/n.md'), 'edited'); // both paths change
    const second = await store.create({ dir: src }, { lineage: 'p', kind: 'workspace', parent: first.id });
    const d = await diffSnapshots(store, first.id, second.id);
    expect(d.changed).toEqual(expect.arrayContaining(['a-notes/n.md']));
  });

  it('a tar stream whose link names a path it did not write first is refused, naming the entry', async () => {
    const store = await openStore(tempDir());
    const tar = Readable.from([buildTar([{ path: 'late', type: 'Link', linkpath: 'later.txt' }, { path: 'later.txt', type: 'File', body: 'x' }])]);
    await expect(store.create({ tar }, { lineage: 'h', kind: 'workspace' })).rejects.toBeInstanceOf(UnsafeArchiveError);
  });
});
