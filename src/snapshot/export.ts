import { PassThrough, type Readable } from 'node:stream';
import { readLayer, pathFilter, scanChain, type Chain } from './layers.js';
import type { BlobStore } from './blobs.js';
import { SnapshotCorruptError } from './errors.js';
import { ArchiveBudget, guardPath } from './restore-guard.js';
import { TarWriter } from './tar-write.js';
import { survivorsFromIndex, type Survivors } from './export-survivors.js';
import type { MergedTree } from './tree.js';
import type { RestoreLimits } from './types.js';
import type { OnProgress } from '../config/progress.js';

/** Ownership written into exported tar headers (for `putArchive` into a sandbox whose user is not root). */
export interface ExportOwner {
  uid: number;
  gid: number;
}

/**
 * Pass 2: writes the merged tree of `chain` as tar entries onto `writer` (the caller ends the archive). All directories come
 * first (parents before children), then each layer's surviving files and links in layer order, so a
 * reader never meets an entry before its directory. Each blob is hashed again while read (it could have
 * changed since pass 1). `filters` are guarded path segments; `undefined` = everything.
 */
export async function writeMerged(
  blobs: BlobStore,
  chain: Chain,
  tree: MergedTree,
  writer: TarWriter,
  options: {
    filters?: string[][];
    owner?: ExportOwner;
    limits: RestoreLimits;
    /**
     * Write only what layers from this one up contributed (folding deltas onto a base that stays below them;
     * see `fold.ts`); directories never listed by any layer are written only when `basePaths` lacks them.
     */
    fromLayer?: number;
    basePaths?: ReadonlySet<string>;
    /** Told the content bytes written so far (`done`, of `total`), at most every 500 ms (step `restore`). */
    onProgress?: OnProgress;
    /** `tree` came from the tree index (no layer ordinals): these decide which entries carry it. */
    survivors?: Survivors;
  },
): Promise<{ files: number; bytes: number }> {
  const keep = pathFilter(options.filters);
  const owner = options.owner ?? { uid: 0, gid: 0 };
  let files = 0;
  let bytes = 0;
  let total = 0;
  if (options.onProgress) for (const { segments, node } of tree.walk()) if (node.entry.type === 'file' && keep(segments)) total += node.entry.size;
  let sent = 0;
  let lastReport = Date.now();
  const report = (n: number): void => {
    sent += n;
    const now = Date.now();
    if (!options.onProgress || now - lastReport < 500) return;
    lastReport = now;
    options.onProgress({ step: 'restore', phase: 'progress', done: sent, total, unit: 'bytes' });
  };
  for (const { path, segments, node } of tree.walk()) {
    if (node.entry.type !== 'dir' || !keep(segments)) continue;
    const src = node.entry.source;
    if (options.fromLayer && (src ? src.layer < options.fromLayer : options.basePaths?.has(path))) continue;
    await writer.header({ path, type: 'Directory', mode: node.entry.mode, mtime: node.entry.mtime, ...owner });
    files += 1;
  }
  const budget = new ArchiveBudget(options.limits);
  for (const [li, layer] of chain.layers.entries()) {
    if (li < (options.fromLayer ?? 0)) continue;
    let ordinal = -1;
    await readLayer(blobs, chain.id, layer, budget, async (entry) => {
      ordinal += 1;
      budget.onHeader(entry.path, entry.size);
      const segments = guardPath(entry.path, options.limits);
      const node = segments.length ? tree.get(segments) : undefined;
      const src = node?.entry.source;
      const path = segments.join('/');
      const carries = !node || !keep(segments)
        ? false
        : options.survivors
          ? options.survivors.pick(li, ordinal, path, node, entry)
          : src !== null && src !== undefined && src.layer === li && src.ordinal === ordinal && node.entry.type !== 'dir';
      if (!carries) return void entry.resume();
      const { type, mode, mtime, linkpath, size } = node!.entry;
      files += 1;
      if (type === 'file') {
        await writer.header({ path, type: 'File', mode, mtime, size, ...owner });
        for await (const c of entry as AsyncIterable<Buffer>) {
          await writer.write(c);
          report(c.length);
        }
        await writer.pad(size);
        bytes += size;
        return;
      }
      entry.resume();
      if (type === 'hardlink' && !keep(linkpath!.split('/'))) return void (files -= 1);
      await writer.header({ path, type: type === 'symlink' ? 'SymbolicLink' : 'Link', mode, mtime, linkpath, ...owner });
    });
  }
  if (options.survivors) {
    let expected = 0;
    for (const { segments, node } of tree.walk()) if (node.entry.type !== 'dir' && keep(segments)) expected += 1;
    options.survivors.done(expected);
  }
  return { files, bytes };
}

/**
 * The merged tree of a snapshot as an uncompressed tar stream. Pass 1 (digest check and guard) completes
 * before this returns, so a corrupt or hostile snapshot throws here and nothing is streamed; errors in
 * pass 2 destroy the stream with the error. With `indexTree`, pass 1 covers the index and the layers above the
 * base only, plus a hash of the base layer's compressed bytes, so a damaged or missing blob still throws here.
 */
export async function exportChain(
  blobs: BlobStore,
  chain: Chain,
  options: {
    paths?: string[];
    owner?: ExportOwner;
    limits: RestoreLimits;
    tree?: MergedTree;
    /**
     * The snapshot's merged tree from its tree index (`readTreeIndex`, already checked): pass 1 then reads only
     * the layers above the base (`survivorsFromIndex`), not the whole tree a second time.
     */
    indexTree?: MergedTree;
    onProgress?: OnProgress;
  },
): Promise<Readable> {
  const filters = options.paths?.map((p) => guardPath(p, options.limits));
  const tree = options.tree ?? options.indexTree ?? (await scanChain(blobs, chain, options.limits));
  const survivors = !options.tree && options.indexTree ? await survivorsFromIndex(blobs, chain, options.indexTree, options.limits) : undefined;
  // Pass 1 from the index does not read the base layer. Hashing its compressed bytes (no inflate, no parse) keeps the
  // promise that a damaged or missing blob throws here, before anything streams.
  const base = chain.layers[0];
  if (survivors && base) {
    const got = await blobs.digestOf(base.digest).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new SnapshotCorruptError(chain.id, `layer blob ${base.digest} is missing`);
      throw new SnapshotCorruptError(chain.id, `layer blob ${base.digest} cannot be read: ${err.message}`);
    });
    if (got.digest !== base.digest) throw new SnapshotCorruptError(chain.id, `layer blob ${base.digest} does not match its digest (got ${got.digest})`);
  }
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  const writer = new TarWriter(out);
  writeMerged(blobs, chain, tree, writer, { filters, owner: options.owner, limits: options.limits, ...(survivors ? { survivors } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) })
    .then(() => writer.end())
    .then(
      () => out.end(),
      (err: unknown) => out.destroy(err as Error),
    );
  return out;
}
