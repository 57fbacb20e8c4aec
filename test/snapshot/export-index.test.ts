import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { exportChain } from '../../src/snapshot/export.js';
import { resolveLimits } from '../../src/snapshot/limits.js';
import { readTreeIndex, writeTreeIndex } from '../../src/snapshot/tree-index.js';
import { buildMessyTree } from '../support/messy-tree.js';
import { tempDir } from './helpers.js';

async function snap(store: DirectoryStore, src: string): Promise<string> {
  const head = await store.getHead('l');
  const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
  await store.advanceHead('l', head, m.id);
  return m.id;
}

/** The export as pass 1 always did it: the whole chain scanned, no index. */
async function scannedExport(store: DirectoryStore, id: string): Promise<Buffer> {
  return buffer(await exportChain(store.blobs, await store.get(id), { limits: resolveLimits() }));
}

/** A chain of a messy tree with deltas that replace, delete, re-create and re-link paths. */
async function messyChain(): Promise<{ store: DirectoryStore; id: string }> {
  const src = tempDir();
  buildMessyTree(src, { entries: 300, sparseBytes: 2 * 1024 * 1024 });
  mkdirSync(join(src, 'pkg/deep'), { recursive: true });
  writeFileSync(join(src, 'pkg/deep/a.js'), 'a');
  writeFileSync(join(src, 'pkg/b.js'), 'b');
  writeFileSync(join(src, 'shared'), 'content');
  linkSync(join(src, 'shared'), join(src, 'shared-link'));
  const store = await openStore(tempDir());
  await snap(store, src);
  rmSync(join(src, 'pkg/deep'), { recursive: true }); // a directory becomes a file
  writeFileSync(join(src, 'pkg/deep'), 'now a file');
  writeFileSync(join(src, 'pkg/b.js'), 'b2');
  symlinkSync('pkg/b.js', join(src, 'to-b'));
  await snap(store, src);
  rmSync(join(src, 'pkg/deep')); // and a directory again, with new content
  mkdirSync(join(src, 'pkg/deep'));
  writeFileSync(join(src, 'pkg/deep/c.js'), 'c');
  rmSync(join(src, 'shared'));
  writeFileSync(join(src, 'shared'), 'other content'); // the link group splits
  const id = await snap(store, src);
  return { store, id };
}

describe('export from the tree index (a session restore reads the base layer once)', () => {
  it('sends the same tar, byte for byte, as the export that scans the whole chain', async () => {
    const { store, id } = await messyChain();
    expect((await store.get(id)).layers.length).toBe(3);
    const viaIndex = await buffer((await store.exportTar(id)) as Readable);
    expect(viaIndex.equals(await scannedExport(store, id))).toBe(true);
    const some = await buffer((await store.exportTar(id, { paths: ['pkg', 'shared-link'] })) as Readable);
    const someScanned = await buffer(await exportChain(store.blobs, await store.get(id), { paths: ['pkg', 'shared-link'], limits: resolveLimits() }));
    expect(some.equals(someScanned)).toBe(true);
  });

  it('an index that does not match the layers (an extra path, a wrong size) fails the export with SNAPSHOT_CORRUPT', async () => {
    const { store, id } = await messyChain();
    const m = await store.get(id);
    for (const damage of ['extra', 'size'] as const) {
      const tree = await readTreeIndex(store.blobs, m.treeIndex!, resolveLimits());
      if (damage === 'extra') tree.put(['pkg', 'never-packed.js'], { type: 'file', mode: 0o644, size: 1, mtime: 0, hash: 'a'.repeat(64), source: null }, 'pkg/never-packed.js');
      else tree.get(['pkg', 'b.js'])!.entry.size = 3;
      const ref = await writeTreeIndex(store.blobs, tree);
      const stream = await exportChain(store.blobs, m, { limits: resolveLimits(), indexTree: await readTreeIndex(store.blobs, ref, resolveLimits()) });
      await expect(buffer(stream)).rejects.toMatchObject({ code: 'SNAPSHOT_CORRUPT' });
    }
  });
});
