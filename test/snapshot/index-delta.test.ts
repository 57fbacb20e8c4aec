import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/config/progress.js';
import { openStore, type DirectoryStore, type Manifest } from '../../src/snapshot/index.js';
import { collectGarbage, pruneSnapshots, verifySnapshots } from '../../src/snapshot/maintenance.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { scanChain } from '../../src/snapshot/layers.js';
import { compareTrees, indexRows, MAX_INDEX_CHAIN, readTreeIndex, writeTreeIndex } from '../../src/snapshot/tree-index.js';
import { describeTree, tempDir } from './helpers.js';

async function snap(store: DirectoryStore, src: string, kind: 'workspace' | 'memory' = 'workspace', scope?: string[], events: ProgressEvent[] = []): Promise<Manifest> {
  const head = await store.getHead('l');
  const m = await store.create({ dir: src }, { lineage: 'l', kind, ...(scope ? { scope } : {}), onProgress: (e) => events.push(e) });
  await store.advanceHead('l', head, m.id);
  return m;
}

/** A project-like tree: `files` small sources in nested folders, a memory folder, a link. */
function project(root: string, files: number): string {
  for (let i = 0; i < files; i++) {
    const dir = join(root, 'node_modules', `pkg${i % 50}`, 'lib');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.js`), `module.exports = ${i}; // ${'x'.repeat(4000 + (i % 7) * 300)}\n`);
  }
  mkdirSync(join(root, 'memories'), { recursive: true });
  writeFileSync(join(root, 'memories/MEMORY.md'), '# Memory\n');
  symlinkSync('node_modules/pkg1', join(root, 'pkg1-link'));
  return root;
}

/** Bytes of the snapshot's own index blob (its bases belong to earlier snapshots). */
function indexBytes(store: DirectoryStore, m: Manifest): number {
  return statSync(store.blobs.pathOf(m.treeIndex!.digest)).size;
}

describe('tree index stored as a change against the parent', () => {
  it('a memory-only snapshot adds bytes in proportion to the change (layer, index and manifest)', async () => {
    const src = project(tempDir(), 2000);
    const store = await openStore(tempDir());
    const first = await snap(store, src);
    expect(first.treeIndex!.bases).toBeUndefined(); // the first index is full
    const fullIndex = first.treeIndex!.compressedBytes;
    const srcBytes = 2000 * 4300;
    for (let run = 1; run <= 5; run++) {
      writeFileSync(join(src, 'memories/MEMORY.md'), `# Memory\n${'- lesson\n'.repeat(run)}`);
      const events: ProgressEvent[] = [];
      const m = await snap(store, src, 'memory', ['memories'], events);
      expect(m.treeIndex!.bases).toHaveLength(run);
      const added = m.layers.at(-1)!.compressedBytes + indexBytes(store, m) + statSync(store.manifests.pathOf(m.id)).size;
      // What the snapshot reports having added is every byte of it, index and manifest included.
      expect(events.find((e) => e.phase === 'end')?.message).toBe(`${m.id} (+${added} bytes)`);
      // Before, each snapshot wrote the whole-tree index again (here about 0.4 % of the tree).
      expect(m.treeIndex!.compressedBytes).toBeLessThan(fullIndex / 20);
      expect(added / srcBytes).toBeLessThan(0.0005);
      const read = await readTreeIndex(store.blobs, m.treeIndex!, DEFAULT_RESTORE_LIMITS);
      expect(compareTrees(read, await scanChain(store.blobs, m, DEFAULT_RESTORE_LIMITS, { hashContent: true }))).toBeNull();
    }
  });

  it('a long chain of changes of every kind reads back equal to the layers, and the delta chain stays bounded', async () => {
    const src = tempDir();
    const store = await openStore(tempDir(), { maxChainLength: 8 });
    for (let i = 0; i < 40; i++) writeFileSync(join(src, `f${i}`), `file ${i}`);
    mkdirSync(join(src, 'd/e'), { recursive: true });
    writeFileSync(join(src, 'd/e/x'), 'x');
    const ids: Manifest[] = [await snap(store, src)];
    for (let run = 0; run < MAX_INDEX_CHAIN + 8; run++) {
      const k = run % 40;
      switch (run % 6) {
        case 0: writeFileSync(join(src, `f${k}`), `changed ${run}`); break;
        case 1: rmSync(join(src, `f${k}`), { force: true }); break;
        case 2: chmodSync(join(src, 'd/e/x'), run % 4 ? 0o600 : 0o755); break;
        case 3: rmSync(join(src, 'd'), { recursive: true }); writeFileSync(join(src, 'd'), `d became a file ${run}`); break; // dir → file
        case 4: rmSync(join(src, 'd'), { recursive: true, force: true }); mkdirSync(join(src, 'd/e'), { recursive: true }); writeFileSync(join(src, 'd/e/x'), `back ${run}`); break; // file → dir
        case 5: rmSync(join(src, `l${run}`), { force: true }); symlinkSync(`f${k}`, join(src, `l${run}`)); break;
      }
      ids.push(await snap(store, src));
    }
    const chains = ids.map((m) => m.treeIndex!.bases?.length ?? 0);
    // Each index is one more delta on its parent's, or full again (at the bound, or when many rows changed:
    // files get their stat fingerprints once they are 2 s old, which changes every row at once).
    for (let i = 1; i < chains.length; i++) expect([0, chains[i - 1]! + 1]).toContain(chains[i]);
    expect(Math.max(...chains)).toBeLessThanOrEqual(MAX_INDEX_CHAIN);
    expect(Math.max(...chains)).toBeGreaterThanOrEqual(8);
    // At the bound the next index is full, whatever the change.
    const last = ids.at(-1)!;
    const tree = await readTreeIndex(store.blobs, last.treeIndex!, DEFAULT_RESTORE_LIMITS);
    const rows = indexRows(tree);
    const atBound = { ...last.treeIndex!, bases: Array.from({ length: MAX_INDEX_CHAIN }, () => last.treeIndex!.digest) };
    expect((await writeTreeIndex(store.blobs, tree, { ref: atBound, rows })).bases).toBeUndefined();
    const below = { ...last.treeIndex!, bases: Array.from({ length: MAX_INDEX_CHAIN - 1 }, () => last.treeIndex!.digest) };
    tree.remove(['d']); // present as a file or a directory at every step
    expect((await writeTreeIndex(store.blobs, tree, { ref: below, rows })).bases).toHaveLength(MAX_INDEX_CHAIN);
    for (const m of ids) {
      const read = await readTreeIndex(store.blobs, m.treeIndex!, DEFAULT_RESTORE_LIMITS);
      expect(compareTrees(read, await scanChain(store.blobs, m, DEFAULT_RESTORE_LIMITS, { hashContent: true }))).toBeNull();
    }
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(ids.at(-1)!.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  });

  it('a delta that changes most rows is written as a full index', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    for (let i = 0; i < 100; i++) writeFileSync(join(src, `f${i}`), `v1 ${i}`);
    await snap(store, src);
    for (let i = 0; i < 60; i++) writeFileSync(join(src, `f${i}`), `v2 ${i}`);
    const m = await snap(store, src);
    expect(m.treeIndex!.bases).toBeUndefined();
  });

  it('a damaged delta blob or base is detected: verify names it, the next snapshot scans the chain and is still right', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    writeFileSync(join(src, 'a'), 'a');
    writeFileSync(join(src, 'b'), 'b');
    const first = await snap(store, src);
    writeFileSync(join(src, 'a'), 'a2');
    const second = await snap(store, src);
    expect(second.treeIndex!.bases).toEqual([first.treeIndex!.digest]);
    // Valid gzip, valid format, but another change: only the digest check can catch it.
    const blob = store.blobs.pathOf(second.treeIndex!.digest);
    const forged = JSON.parse(gunzipSync(readFileSync(blob)).toString('utf8')) as { put: unknown[][] };
    forged.put[0]![3] = 99;
    chmodSync(blob, 0o644);
    writeFileSync(blob, gzipSync(JSON.stringify(forged)));
    await expect(readTreeIndex(store.blobs, second.treeIndex!, DEFAULT_RESTORE_LIMITS)).rejects.toThrow(/does not match its digest/);
    const results = await verifySnapshots(store);
    expect(results.find((r) => r.id === second.id)).toEqual({ id: second.id, ok: false, error: expect.stringContaining('tree index') });
    writeFileSync(join(src, 'b'), 'b2');
    const third = await snap(store, src);
    expect(third.layers[2]!.fileCount).toBe(1);
    expect(third.treeIndex!.bases).toBeUndefined(); // its parent's index could not be read: a full one
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(third.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));

    // A manifest whose bases do not match what the delta names is refused too.
    const wrongBase = { ...second.treeIndex!, digest: third.treeIndex!.digest, bases: [first.treeIndex!.digest] };
    await expect(readTreeIndex(store.blobs, wrongBase, DEFAULT_RESTORE_LIMITS)).rejects.toThrow(/full but the manifest lists bases/);
  });

  it('gc and prune keep the base indexes a kept snapshot needs, and remove them once nothing does', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    for (let i = 0; i < 50; i++) writeFileSync(join(src, `f${i}`), `file ${i}`);
    // Past the pack's racy window (2 s): files this fresh get their stat fingerprint only in a later snapshot,
    // and 50 rows gaining one at once would make that delta a full index, whenever the machine is that fast.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const ms: Manifest[] = [await snap(store, src)];
    for (let run = 0; run < 4; run++) {
      writeFileSync(join(src, `f${run}`), `changed ${run}`);
      ms.push(await snap(store, src));
    }
    const last = ms.at(-1)!;
    expect(last.treeIndex!.bases).toHaveLength(4);
    const report = await pruneSnapshots(store, { keep: 1, graceMs: 0 });
    expect(report.removedSnapshots).toHaveLength(4);
    await collectGarbage(store, { graceMs: 0 });
    for (const d of [last.treeIndex!.digest, ...last.treeIndex!.bases!]) expect(await store.blobs.has(d)).toBe(true);
    const read = await readTreeIndex(store.blobs, last.treeIndex!, DEFAULT_RESTORE_LIMITS);
    expect(compareTrees(read, await scanChain(store.blobs, last, DEFAULT_RESTORE_LIMITS, { hashContent: true }))).toBeNull();
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
    // The next snapshot still builds on it as a delta.
    writeFileSync(join(src, 'f10'), 'again');
    const next = await snap(store, src);
    expect(next.treeIndex!.bases).toEqual([last.treeIndex!.digest, ...last.treeIndex!.bases!]);
    // Once only a snapshot with a full index is left, the old chain goes.
    const squashed = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace', parent: null });
    await store.advanceHead('l', next.id, squashed.id);
    await pruneSnapshots(store, { keep: 1, graceMs: 0 });
    for (const d of last.treeIndex!.bases!) expect(await store.blobs.has(d)).toBe(false);
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
  });

  it('manifests with a full (format 1) index or none, written before deltas existed, restore and take a delta on top', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    writeFileSync(join(src, 'a'), 'a');
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'memories/MEMORY.md'), 'one');
    const first = await snap(store, src);
    // Written the way 0.1 wrote it: formatVersion 1, a full index and no `bases`.
    const raw = JSON.parse(readFileSync(store.manifests.pathOf(first.id), 'utf8')) as Manifest;
    expect(raw.formatVersion).toBe(1);
    expect(raw.treeIndex && 'bases' in raw.treeIndex).toBe(false);
    const index = JSON.parse(gunzipSync(readFileSync(store.blobs.pathOf(first.treeIndex!.digest))).toString('utf8')) as { v: number };
    expect(index.v).toBe(1);
    writeFileSync(join(src, 'memories/MEMORY.md'), 'two');
    const second = await snap(store, src, 'memory', ['memories']);
    expect(second.treeIndex!.bases).toEqual([first.treeIndex!.digest]);
    // And one with no index at all: restores, and the next snapshot writes a full index.
    const { treeIndex: _, ...noIndex } = second;
    writeFileSync(store.manifests.pathOf(second.id), JSON.stringify(noIndex));
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(second.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
    writeFileSync(join(src, 'a'), 'a2');
    const third = await snap(store, src);
    expect(third.treeIndex!.bases).toBeUndefined();
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
  });
});
