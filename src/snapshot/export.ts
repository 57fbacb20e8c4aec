import { PassThrough, type Readable } from 'node:stream';
import { readLayer, pathFilter, scanChain, type Chain } from './layers.js';
import type { BlobStore } from './blobs.js';
import { SnapshotCorruptError } from './errors.js';
import { ArchiveBudget, guardPath, guardType } from './restore-guard.js';
import { TarWriter } from './tar-write.js';
import { survivorsFromIndex, type Survivors } from './export-survivors.js';
import type { MergedTree, TreeNode } from './tree.js';
import { planSubset, type SubsetPlan } from './export-subset.js';
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
    /** The subset plan of `filters`, when the caller made it already (`planFor`). */
    plan?: SubsetPlan;
  },
): Promise<{ files: number; bytes: number }> {
  const keep = pathFilter(options.filters);
  const survivors = options.survivors;
  // A subset reads only the layers that carry what it writes (`export-subset.ts`).
  const plan = options.plan ?? (options.filters ? planFor(tree, keep, survivors) : undefined);
  const owner = options.owner ?? { uid: 0, gid: 0 };
  let files = 0;
  let bytes = 0;
  let total = 0;
  if (options.onProgress) for (const { segments, node } of tree.walk()) if (node.entry.type === 'file' && keep(segments)) total += node.entry.size;
  for (const target of plan?.linksByTarget.keys() ?? []) total += tree.get(target.split('/'))?.entry.size ?? 0;
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
    if (li < (options.fromLayer ?? 0) || (plan && !plan.layers.has(li))) continue;
    let ordinal = -1;
    await readLayer(blobs, chain.id, layer, budget, async (entry) => {
      ordinal += 1;
      budget.onHeader(entry.path, entry.size);
      const segments = guardPath(entry.path, options.limits);
      const node = segments.length ? tree.get(segments) : undefined;
      const src = node?.entry.source;
      const path = segments.join('/');
      const links = node && plan?.linksByTarget.get(path);
      if (links && (survivors ? survivors.carries(li, ordinal, path) : src?.layer === li && src.ordinal === ordinal)) {
        const wrote = await writeLinksAsFile(writer, tree, links, node!, entry, owner, chain.id, report);
        files += wrote.files;
        bytes += wrote.bytes;
        return;
      }
      const carries = !node || !keep(segments)
        ? false
        : survivors
          ? survivors.pick(li, ordinal, path, node, entry)
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
      // Its target is left out: the link is written with the target's bytes where that entry is read.
      if (type === 'hardlink' && !keep(linkpath!.split('/'))) return void (files -= 1);
      await writer.header({ path, type: type === 'symlink' ? 'SymbolicLink' : 'Link', mode, mtime, linkpath, ...owner });
    });
  }
  if (survivors) {
    let expected = 0;
    for (const { segments, node } of tree.walk()) if (node.entry.type !== 'dir' && keep(segments)) expected += 1;
    survivors.done(expected);
  }
  return { files, bytes };
}

/** `planSubset` with the carrier of each node: from the index's survivors, else from the scanned tree's sources. */
const planFor = (tree: MergedTree, keep: (segments: string[]) => boolean, survivors?: Survivors): SubsetPlan =>
  planSubset(tree, keep, (path, node) => (survivors ? survivors.layerOf(path) : (node.entry.source?.layer ?? -1)));

/**
 * Writes hard links whose target is left out of a subset export from the target's layer entry: the first link as
 * a file with the target's bytes, the others as links to it (`Link` to a path earlier in the same archive). Throws
 * `SnapshotCorruptError` when the entry is not the file the tree says (type, size).
 */
async function writeLinksAsFile(
  writer: TarWriter,
  tree: MergedTree,
  links: string[],
  target: TreeNode,
  entry: AsyncIterable<Buffer> & { type: string; size: number; resume(): void },
  owner: ExportOwner,
  chainId: string,
  report: (n: number) => void,
): Promise<{ files: number; bytes: number }> {
  const { size } = target.entry;
  if (guardType(entry.type, links[0]!) !== 'file' || entry.size !== size) {
    throw new SnapshotCorruptError(chainId, `the target of the hard link ${links[0]} does not match its layer (tree: file of ${size} bytes; layer: ${entry.type} of ${entry.size})`);
  }
  const [first, ...rest] = links as [string, ...string[]];
  const firstNode = tree.get(first.split('/'))!;
  await writer.header({ path: first, type: 'File', mode: firstNode.entry.mode, mtime: firstNode.entry.mtime, size, ...owner });
  for await (const c of entry) {
    await writer.write(c);
    report(c.length);
  }
  await writer.pad(size);
  for (const other of rest) {
    const n = tree.get(other.split('/'))!;
    await writer.header({ path: other, type: 'Link', mode: n.entry.mode, mtime: n.entry.mtime, linkpath: first, ...owner });
  }
  return { files: links.length, bytes: size };
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
  const plan = filters ? planFor(tree, pathFilter(filters), survivors) : undefined;
  const base = chain.layers[0];
  // A subset that needs nothing of the base does not read it at all; its digest is checked when it is read.
  if (survivors && base && (!plan || plan.layers.has(0))) {
    const got = await blobs.digestOf(base.digest).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new SnapshotCorruptError(chain.id, `layer blob ${base.digest} is missing`);
      throw new SnapshotCorruptError(chain.id, `layer blob ${base.digest} cannot be read: ${err.message}`);
    });
    if (got.digest !== base.digest) throw new SnapshotCorruptError(chain.id, `layer blob ${base.digest} does not match its digest (got ${got.digest})`);
  }
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  const writer = new TarWriter(out);
  writeMerged(blobs, chain, tree, writer, { filters, owner: options.owner, limits: options.limits, ...(plan ? { plan } : {}), ...(survivors ? { survivors } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) })
    .then(() => writer.end())
    .then(
      () => out.end(),
      (err: unknown) => out.destroy(err as Error),
    );
  return out;
}
