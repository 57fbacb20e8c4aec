import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { BlobStore } from './blobs.js';
import { guardPath } from './restore-guard.js';
import { MergedTree } from './tree.js';
import type { RestoreLimits, TreeIndexRef } from './types.js';

/**
 * A snapshot's tree index: the merged tree of its whole chain (path → type, mode, size, mtime, sha256,
 * link target, stat fingerprint), stored as a gzip'd JSON blob in the blob store and named by the manifest's
 * optional `treeIndex`. It lets a delta learn its parent's tree without decompressing the parent's chain,
 * and lets a host-dir pack skip reading a file whose stat fingerprint matches the parent's (see `pack.ts`).
 * Format version 1: `{"v":1,"entries":[[path,type,mode,size,mtimeMs,sha256|null,linkpath|null,fingerprint|null],…]}`,
 * parents before children. Only ever used to compute a delta, never to restore: restores read the layers.
 */
const INDEX_VERSION = 1;

const RowSchema = z.tuple([
  z.string(),
  z.enum(['file', 'dir', 'symlink', 'hardlink']),
  z.number().int().nonnegative(),
  z.number().int().nonnegative(),
  z.number(),
  z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  z.string().nullable(),
  z.string().nullable(),
]);
const IndexSchema = z.object({ v: z.literal(INDEX_VERSION), entries: z.array(RowSchema) });

/** Gzip'd bytes of the index of `tree`. Every file must carry its content hash (throws otherwise). */
export function encodeTreeIndex(tree: MergedTree): { bytes: Buffer; entries: number } {
  const rows: z.infer<typeof RowSchema>[] = [];
  for (const { path, node } of tree.walk()) {
    const e = node.entry;
    if (e.type === 'file' && !e.hash) throw new Error(`tree index: ${path} has no content hash`);
    rows.push([path, e.type, e.mode, e.size, e.mtime, e.hash ?? null, e.linkpath ?? null, e.fingerprint ?? null]);
  }
  return { bytes: gzipSync(JSON.stringify({ v: INDEX_VERSION, entries: rows }), { level: 1 }), entries: rows.length };
}

/** Stores the index of `tree` as a content-addressed blob (temp, fsync, rename); returns the manifest's reference. */
export async function writeTreeIndex(blobs: BlobStore, tree: MergedTree): Promise<TreeIndexRef> {
  const { bytes, entries } = encodeTreeIndex(tree);
  const { digest } = await blobs.write(Readable.from([bytes]));
  return { digest, compressedBytes: bytes.length, entries };
}

/**
 * Reads and checks a tree index: the blob's sha256 must equal `ref.digest`, it must inflate to at most
 * 1 GiB, match the format, and every path must pass the restore guard's path checks and the tree's
 * no-write-through-a-non-directory rule. Throws on any mismatch (callers fall back to scanning the chain).
 * All entries get layer 0 as their source.
 */
export async function readTreeIndex(blobs: BlobStore, ref: TreeIndexRef, limits: RestoreLimits): Promise<MergedTree> {
  const raw = await readFile(blobs.pathOf(ref.digest));
  const actual = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
  if (actual !== ref.digest) throw new Error(`tree index blob ${ref.digest} does not match its digest (got ${actual})`);
  const parsed = IndexSchema.parse(JSON.parse(gunzipSync(raw, { maxOutputLength: 1024 * 1024 * 1024 }).toString('utf8')));
  if (parsed.entries.length > limits.maxFiles) throw new Error(`tree index has ${parsed.entries.length} entries, over the limit`);
  const tree = new MergedTree();
  for (const [path, type, mode, size, mtime, hash, linkpath, fingerprint] of parsed.entries) {
    const segments = guardPath(path, limits);
    if (type === 'file' && hash === null) throw new Error(`tree index: ${path} has no content hash`);
    tree.put(
      segments,
      {
        type,
        mode,
        size,
        mtime,
        ...(hash !== null ? { hash } : {}),
        ...(linkpath !== null ? { linkpath } : {}),
        ...(fingerprint !== null ? { fingerprint } : {}),
        source: { layer: 0, ordinal: 0 },
      },
      path,
    );
  }
  return tree;
}

/**
 * First difference between two trees in type, mode, size, link target or content hash (mtimes and
 * fingerprints are ignored), as a message; `null` when they agree. Used by `verify` to check an index
 * against the chain it describes.
 */
export function compareTrees(index: MergedTree, scanned: MergedTree): string | null {
  const a = new Map([...index.walk()].map(({ path, node }) => [path, node.entry]));
  for (const { path, node } of scanned.walk()) {
    const x = a.get(path);
    const y = node.entry;
    if (!x) return `${path} is missing from the index`;
    a.delete(path);
    if (x.type !== y.type || x.mode !== y.mode || x.linkpath !== y.linkpath) return `${path} differs in type, mode or link`;
    if (y.type === 'file' && (x.size !== y.size || x.hash !== y.hash)) return `${path} differs in content`;
  }
  const [extra] = a.keys();
  return extra === undefined ? null : `${extra} is in the index but not in the snapshot`;
}
