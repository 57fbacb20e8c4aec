import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { indexRows, readTreeIndex, writeTreeIndex } from '../../src/snapshot/tree-index.js';
import { MergedTree, type TreeEntry } from '../../src/snapshot/tree.js';
import { tempDir } from './helpers.js';

const HASH = 'a'.repeat(64);
const GOOD: unknown[][] = [
  ['d', 'dir', 0o755, 0, 1_000, null, null, null],
  ['d/f', 'file', 0o644, 3, 1_000, HASH, null, '1:2:3:4:5'],
  ['d/l', 'symlink', 0o777, 0, 1_000, null, 'f', null],
];

/** Writes `entries` as a full (format 1) index blob; returns the manifest's reference to it. */
async function fullIndex(store: Awaited<ReturnType<typeof openStore>>, entries: unknown[][]): Promise<{ digest: string; compressedBytes: number; entries: number }> {
  const bytes = gzipSync(JSON.stringify({ v: 1, entries }));
  const { digest } = await store.blobs.write(Readable.from([bytes]));
  return { digest, compressedBytes: bytes.length, entries: entries.length };
}

describe('tree index rows read from disk', () => {
  it('accepts well-formed rows and refuses a row with any field of the wrong kind', async () => {
    const store = await openStore(tempDir());
    const tree = await readTreeIndex(store.blobs, await fullIndex(store, GOOD), DEFAULT_RESTORE_LIMITS);
    expect(tree.get(['d', 'f'])?.entry).toMatchObject({ type: 'file', size: 3, hash: HASH, fingerprint: '1:2:3:4:5' });
    const bad: Array<[number, unknown]> = [
      [0, 7], // path not a string
      [1, 'fifo'], // type outside the four
      [2, -1], // mode negative
      [2, 1.5], // mode not whole
      [3, '3'], // size not a number
      [4, '1000'], // mtime not a number
      [5, 'A'.repeat(64)], // hash not lowercase hex
      [5, HASH.slice(1)], // hash too short
      [6, 5], // link target not a string
      [7, {}], // fingerprint not a string
    ];
    for (const [field, value] of bad) {
      const row = [...GOOD[1]!];
      row[field] = value;
      const ref = await fullIndex(store, [GOOD[0]!, row, GOOD[2]!]);
      await expect(readTreeIndex(store.blobs, ref, DEFAULT_RESTORE_LIMITS), `field ${field} = ${JSON.stringify(value)}`).rejects.toThrow();
    }
    for (const row of [[...GOOD[1]!, null], GOOD[1]!.slice(0, 7), { 0: 'd/f' }] as unknown[]) {
      await expect(readTreeIndex(store.blobs, await fullIndex(store, [GOOD[0]!, row as unknown[]]), DEFAULT_RESTORE_LIMITS)).rejects.toThrow();
    }
  });

  it('a delta index carries every row that differs from the parent in any field, and only those', async () => {
    const store = await openStore(tempDir());
    const parentRef = await fullIndex(store, GOOD);
    const changes: Array<Partial<TreeEntry>> = [{ mode: 0o600 }, { size: 4 }, { mtime: 2_000 }, { hash: 'b'.repeat(64) }, { fingerprint: '9:9:9:9:9' }];
    for (const change of changes) {
      const tree: MergedTree = await readTreeIndex(store.blobs, parentRef, DEFAULT_RESTORE_LIMITS);
      const rows = indexRows(tree);
      Object.assign(tree.get(['d', 'f'])!.entry, change);
      const ref = await writeTreeIndex(store.blobs, tree, { ref: parentRef, rows });
      expect(ref.bases, JSON.stringify(change)).toEqual([parentRef.digest]);
      const read = await readTreeIndex(store.blobs, ref, DEFAULT_RESTORE_LIMITS);
      expect(read.get(['d', 'f'])!.entry).toMatchObject(change);
      expect(read.get(['d', 'l'])!.entry).toMatchObject({ linkpath: 'f' });
    }
    const same = await readTreeIndex(store.blobs, parentRef, DEFAULT_RESTORE_LIMITS);
    expect(await writeTreeIndex(store.blobs, same, { ref: parentRef, rows: indexRows(same) })).toBe(parentRef);
    const linked = await readTreeIndex(store.blobs, parentRef, DEFAULT_RESTORE_LIMITS);
    const linkRows = indexRows(linked);
    linked.get(['d', 'l'])!.entry.linkpath = 'g';
    const moved = await readTreeIndex(store.blobs, await writeTreeIndex(store.blobs, linked, { ref: parentRef, rows: linkRows }), DEFAULT_RESTORE_LIMITS);
    expect(moved.get(['d', 'l'])!.entry.linkpath).toBe('g');
  });
});
