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
 * link target, stat fingerprint), stored gzip'd JSON in the blob store and named by the manifest's optional
 * `treeIndex`. It lets a delta learn its parent's tree without decompressing the parent's chain, and lets a
 * host-dir pack skip reading a file whose stat fingerprint matches the parent's (see `pack.ts`).
 * Two blob formats, parents before children in both:
 * - version 1, full: `{"v":1,"entries":[[path,type,mode,size,mtimeMs,sha256|null,linkpath|null,fingerprint|null],…]}`;
 * - version 2, a change against the parent snapshot's index: `{"v":2,"base":"sha256:…","del":[path,…],"put":[row,…]}`
 *   (rows as in version 1; `del` lists every path the parent had and this tree lacks; `put` every row that is
 *   new or differs). The manifest's `treeIndex.bases` lists the digests of the whole chain down to a full index,
 *   nearest first, so gc, prune, copy and the S3 store keep and move them without reading any blob.
 * A chain holds at most `MAX_INDEX_CHAIN` deltas, and a delta that would change more than `FULL_INDEX_FRACTION` of
 * the rows is written full instead, so a read costs at most one full index plus a few small deltas.
 * Only ever used to compute a delta, never to restore: restores read the layers.
 */
const INDEX_VERSION = 1;
const DELTA_VERSION = 2;
/** Deltas allowed on top of a full index before the next index is written full again. */
export const MAX_INDEX_CHAIN = 32;
/** A delta touching more than this fraction of the rows is written as a full index. */
export const FULL_INDEX_FRACTION = 0.25;

type Row = [path: string, type: 'file' | 'dir' | 'symlink' | 'hardlink', mode: number, size: number, mtime: number, sha256: string | null, linkpath: string | null, fingerprint: string | null];
const ROW_TYPES = new Set(['file', 'dir', 'symlink', 'hardlink']);
const SHA256_HEX = /^[0-9a-f]{64}$/;
const nullableString = (v: unknown): boolean => v === null || typeof v === 'string';
const wholeNumber = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
/**
 * One row as it must be (the index is read from disk: hostile until checked). Checked by hand rather than by a
 * zod tuple: a real tree's index has tens of thousands of rows, and the schema's per-row copies were most of a
 * memory-only snapshot's time.
 */
const RowSchema = z.custom<Row>(
  (r) =>
    Array.isArray(r) &&
    r.length === 8 &&
    typeof r[0] === 'string' &&
    ROW_TYPES.has(r[1] as string) &&
    wholeNumber(r[2]) &&
    wholeNumber(r[3]) &&
    typeof r[4] === 'number' &&
    (r[5] === null || (typeof r[5] === 'string' && SHA256_HEX.test(r[5]))) &&
    nullableString(r[6]) &&
    nullableString(r[7]),
  { message: 'malformed tree index row' },
);
const IndexSchema = z.object({ v: z.literal(INDEX_VERSION), entries: z.array(RowSchema) });
const DeltaSchema = z.object({
  v: z.literal(DELTA_VERSION),
  base: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  del: z.array(z.string()),
  put: z.array(RowSchema),
});
const AnyIndexSchema = z.union([IndexSchema, DeltaSchema]);
/** Rows of `tree` in walk order (parents first). Every file must carry its content hash (throws otherwise). */
function rowsOf(tree: MergedTree): Row[] {
  const rows: Row[] = [];
  for (const { path, node } of tree.walk()) {
    const e = node.entry;
    if (e.type === 'file' && !e.hash) throw new Error(`tree index: ${path} has no content hash`);
    rows.push([path, e.type, e.mode, e.size, e.mtime, e.hash ?? null, e.linkpath ?? null, e.fingerprint ?? null]);
  }
  return rows;
}

/**
 * The rows of a tree by path, to diff the next snapshot's index against. Take it from the parent's tree before
 * packing, which updates that tree's entries in place (a row holds copies of the entry's fields).
 */
export function indexRows(tree: MergedTree): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const r of rowsOf(tree)) rows.set(r[0], r);
  return rows;
}

/** Whether two rows are equal field by field (rows hold only strings, numbers and nulls). */
function sameRow(a: Row | undefined, b: Row): boolean {
  if (!a) return false;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Every blob a manifest's tree index is made of (its own and its bases), or none when it has no index. */
export function indexDigests(m: { treeIndex?: TreeIndexRef }): string[] {
  return m.treeIndex ? [m.treeIndex.digest, ...(m.treeIndex.bases ?? [])] : [];
}

/** The parent snapshot's index, for writing the next one as a delta: its reference and its rows (`indexRows`). */
export interface IndexParent {
  ref: TreeIndexRef;
  rows: Map<string, Row>;
}

/** Gzip'd bytes of the full (version 1) index of `tree`. Every file must carry its content hash (throws otherwise). */
export function encodeTreeIndex(tree: MergedTree): { bytes: Buffer; entries: number } {
  const rows = rowsOf(tree);
  return { bytes: gzipSync(JSON.stringify({ v: INDEX_VERSION, entries: rows }), { level: 1 }), entries: rows.length };
}

/**
 * Stores the index of `tree` as a content-addressed blob (temp, fsync, rename); returns the manifest's reference.
 * With `parent`, writes a version-2 delta against the parent's index when the chain is short enough and the
 * change small enough (see the module comment), else a full index; the same tree as the parent's gets the
 * parent's reference itself (nothing is written).
 */
export async function writeTreeIndex(blobs: BlobStore, tree: MergedTree, parent?: IndexParent): Promise<TreeIndexRef> {
  const rows = rowsOf(tree);
  let bytes: Buffer | undefined;
  let bases: string[] = [];
  const chain = parent ? [parent.ref.digest, ...(parent.ref.bases ?? [])] : [];
  if (parent && chain.length <= MAX_INDEX_CHAIN) {
    const put: Row[] = [];
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r[0]);
      if (!sameRow(parent.rows.get(r[0]), r)) put.push(r);
    }
    const del = [...parent.rows.keys()].filter((p) => !seen.has(p));
    if (put.length === 0 && del.length === 0) return parent.ref; // the same tree: the parent's index is this one's
    if (put.length + del.length <= Math.max(16, rows.length * FULL_INDEX_FRACTION)) {
      bytes = gzipSync(JSON.stringify({ v: DELTA_VERSION, base: parent.ref.digest, del, put }), { level: 6 });
      bases = chain;
    }
  }
  bytes ??= gzipSync(JSON.stringify({ v: INDEX_VERSION, entries: rows }), { level: 1 });
  const { digest } = await blobs.write(Readable.from([bytes]));
  return { digest, compressedBytes: bytes.length, entries: rows.length, ...(bases.length ? { bases } : {}) };
}

/** One index blob, digest-checked and parsed (full or delta). */
async function readIndexBlob(blobs: BlobStore, digest: string): Promise<z.infer<typeof AnyIndexSchema>> {
  const raw = await readFile(blobs.pathOf(digest));
  const actual = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
  if (actual !== digest) throw new Error(`tree index blob ${digest} does not match its digest (got ${actual})`);
  return AnyIndexSchema.parse(JSON.parse(gunzipSync(raw, { maxOutputLength: 1024 * 1024 * 1024 }).toString('utf8')));
}

/**
 * The rows of the index `ref` names, following a delta chain down to its full index: every blob's sha256 must
 * equal its digest, each delta must name the next digest of `ref.bases` as its base, and the chain must end in
 * a full index exactly where `bases` ends. Throws on any mismatch.
 */
async function resolveRows(blobs: BlobStore, ref: TreeIndexRef): Promise<Row[]> {
  const chain = [ref.digest, ...(ref.bases ?? [])];
  if (chain.length > MAX_INDEX_CHAIN + 1) throw new Error(`tree index chain of ${chain.length} blobs is longer than ${MAX_INDEX_CHAIN + 1}`);
  const deltas: Array<z.infer<typeof DeltaSchema>> = [];
  let full: Row[] | undefined;
  for (const [i, digest] of chain.entries()) {
    const blob = await readIndexBlob(blobs, digest);
    const last = i === chain.length - 1;
    if (blob.v === INDEX_VERSION) {
      if (!last) throw new Error(`tree index blob ${digest} is full but the manifest lists bases below it`);
      full = blob.entries;
    } else {
      if (last) throw new Error(`tree index blob ${digest} is a delta on ${blob.base}, which the manifest does not list`);
      if (blob.base !== chain[i + 1]) throw new Error(`tree index blob ${digest} is a delta on ${blob.base}, the manifest says ${chain[i + 1]}`);
      deltas.push(blob);
    }
  }
  const byPath = new Map(full!.map((r) => [r[0], r]));
  for (const d of deltas.reverse()) {
    for (const p of d.del) byPath.delete(p);
    for (const r of d.put) byPath.set(r[0], r);
  }
  return [...byPath.values()];
}

/**
 * Reads and checks a tree index (following a delta chain to its full index): every blob's sha256 must equal its
 * digest, each must inflate to at most 1 GiB and match its format, the row count must equal `ref.entries`, and every path must pass the restore guard's path checks and the tree's
 * no-write-through-a-non-directory rule. Throws on any mismatch (callers fall back to scanning the chain).
 * All entries get layer 0 as their source.
 */
export async function readTreeIndex(blobs: BlobStore, ref: TreeIndexRef, limits: RestoreLimits): Promise<MergedTree> {
  const entries = await resolveRows(blobs, ref);
  if (entries.length > limits.maxFiles) throw new Error(`tree index has ${entries.length} entries, over the limit`);
  if (entries.length !== ref.entries) throw new Error(`tree index has ${entries.length} entries, the manifest says ${ref.entries}`);
  const tree = new MergedTree();
  for (const [path, type, mode, size, mtime, hash, linkpath, fingerprint] of entries) {
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
