import { createHash } from 'node:crypto';
import { linkSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fsPath } from './names.js';
import { PassThrough } from 'node:stream';
import { FirstFailure, pipe } from './first-failure.js';
import { decompressor } from './codec.js';
import { HashingCounter, type BlobStore } from './blobs.js';
import { MnemaraError } from '../config/errors.js';
import { SnapshotCorruptError, UnsafeArchiveError } from './errors.js';
import { ArchiveBudget, guardMode, guardPath, guardSymlinkTarget, guardType } from './restore-guard.js';
import { readTar, type TarEntry } from './tar-read.js';
import { MergedTree } from './tree.js';
import { GuardedExtractor } from './extract.js';
import { inflateInWorker, WORKER_MIN_BYTES } from './inflate-worker.js';
import { WriteQueue } from './write-queue.js';
import type { OnProgress } from '../config/progress.js';
import type { Layer, RestoreLimits } from './types.js';

/** The layers of one snapshot and the id to name in errors. */
export interface Chain {
  id: string;
  layers: Layer[];
}

/**
 * Runs every entry of one layer blob through `onEntry` (decompressed, parsed), hashing the blob as it
 * streams. Throws `SnapshotCorruptError` naming the snapshot when the blob is missing, its digest differs
 * from the manifest, or it cannot be decompressed/parsed and its digest is also wrong.
 */
export async function readLayer(
  blobs: BlobStore,
  chainId: string,
  layer: Layer,
  budget: ArchiveBudget,
  onEntry: (entry: TarEntry) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  // Chunks are handed to the tar reader one by one (object mode on the readable side): a byte-mode stream's
  // iterator concatenates everything buffered into one new buffer, a copy of most of the layer on a busy main thread.
  const tar = new PassThrough({ writableHighWaterMark: 256 * 1024, readableObjectMode: true, readableHighWaterMark: 16 });
  // A large layer is decompressed (and hashed) on a worker thread, overlapping with the file writes here.
  const counter = layer.compressedBytes >= WORKER_MIN_BYTES && (layer.codec === 'gzip' || layer.codec === 'none') ? undefined : new HashingCounter();
  const inflated = counter ? undefined : inflateInWorker(blobs.pathOf(layer.digest), layer.codec);
  const raw = inflated ? inflated.stream : blobs.read(layer.digest);
  const stages = counter ? [raw, counter, decompressor(layer.codec)] : [raw];
  // The first real failure is the one reported (an ENOSPC of the extraction), not the abort it set off upstream.
  const failures = new FirstFailure();
  const piping = failures.watch(pipe([...stages, tar], signal ? { signal } : {}));
  let digest: string;
  try {
    // Counted as the reader consumes, not as chunks arrive: a chunk can hold far more than the headers read so far.
    await Promise.all([piping, failures.watch(readTar(tar, yielding(onEntry, chainId, signal), (n) => budget.onInflated(n)))]);
    digest = counter ? `sha256:${counter.hash.digest('hex')}` : await inflated!.digest;
  } catch (caught) {
    const err = failures.cause(caught);
    raw.destroy();
    if (signal?.aborted) throw interrupted(chainId, err);
    // Only the blob's own absence is a missing blob (an ENOENT from the extraction is not).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await blobs.has(layer.digest))) {
      throw new SnapshotCorruptError(chainId, `layer blob ${layer.digest} is missing`, err);
    }
    const actual = await blobs.digestOf(layer.digest).catch(() => null);
    if (actual?.digest !== layer.digest) {
      throw new SnapshotCorruptError(chainId, `layer blob ${layer.digest} does not match its digest (got ${actual?.digest ?? 'unreadable'})`, err);
    }
    if (err instanceof MnemaraError) throw err;
    // The blob is whole (checked above): a system call that failed writing the tree is the target's trouble.
    const sys = err as NodeJS.ErrnoException;
    if (sys.syscall && sys.syscall !== 'read' && sys.code !== 'ENOENT') throw err;
    throw new SnapshotCorruptError(chainId, `layer blob ${layer.digest} cannot be read: ${(err as Error).message}`, err);
  }
  if (digest !== layer.digest) {
    throw new SnapshotCorruptError(chainId, `layer blob ${layer.digest} does not match its digest (got ${digest})`);
  }
}

/** How long the entry loop may keep the event loop to itself, in ms. */
const YIELD_EVERY_MS = 50;

/**
 * `onEntry`, letting the event loop run at least every `YIELD_EVERY_MS`: small files are written synchronously,
 * and a layer the worker inflated ahead is then read without ever leaving the microtask queue, so a Ctrl-C would
 * be seen only once the whole restore was done. After each turn an aborted `signal` stops the read.
 */
function yielding(onEntry: (entry: TarEntry) => Promise<void>, chainId: string, signal?: AbortSignal): (entry: TarEntry) => Promise<void> {
  let last = Date.now();
  return async (entry) => {
    if (Date.now() - last >= YIELD_EVERY_MS) {
      await new Promise((r) => setImmediate(r));
      last = Date.now();
      if (signal?.aborted) throw interrupted(chainId);
    }
    return onEntry(entry);
  };
}

/** What an aborted read throws: `MnemaraError('INTERRUPTED')` naming the snapshot. */
export function interrupted(id: string, cause?: unknown): MnemaraError {
  return new MnemaraError('INTERRUPTED', `restore of snapshot ${id} was interrupted; the target was left as it was`, {
    hint: 'Run the restore again to complete it.',
    cause,
  });
}

/**
 * Pass 1 of every read: verifies each layer's digest and checks every entry with the restore guard while
 * building the merged tree (OCI whiteouts applied). With `hashContent` (all files, or those it accepts) each
 * file's sha256 is recorded (needed to compute a delta). Nothing is written anywhere. Throws `SnapshotCorruptError` or `UnsafeArchiveError`.
 */
export async function scanChain(
  blobs: BlobStore,
  chain: Chain,
  limits: RestoreLimits,
  options: {
    hashContent?: boolean | ((segments: string[]) => boolean);
    /** Called after each layer is applied, with the tree so far (e.g. to note what the full base layer holds). */
    onLayerDone?: (layer: number, tree: MergedTree) => void;
  } = {},
): Promise<MergedTree> {
  const hashable = typeof options.hashContent === 'function' ? options.hashContent : () => options.hashContent === true;
  const tree = new MergedTree();
  const budget = new ArchiveBudget(limits);
  for (const [li, layer] of chain.layers.entries()) {
    let ordinal = -1;
    await readLayer(blobs, chain.id, layer, budget, async (entry) => {
      ordinal += 1;
      const segments = guardPath(entry.path, limits);
      if (segments.length === 0) return void entry.resume();
      const base = segments[segments.length - 1]!;
      if (base.startsWith('.wh.')) {
        budget.onHeader(entry.path, 0);
        tree.whiteout(segments, li, entry.path);
        return void entry.resume();
      }
      const type = guardType(entry.type, entry.path);
      budget.onHeader(entry.path, entry.size);
      let linkpath: string | undefined;
      if (type === 'symlink') {
        linkpath = entry.linkpath ?? '';
        guardSymlinkTarget(linkpath, entry.path);
      } else if (type === 'hardlink') {
        const target = guardPath(entry.linkpath ?? '', limits);
        if (tree.get(target)?.entry.type !== 'file') {
          throw new UnsafeArchiveError('hardlink to something that is not a file already in the archive', entry.path);
        }
        linkpath = target.join('/');
      }
      let hash: string | undefined;
      if (type === 'file' && hashable(segments)) {
        const h = createHash('sha256');
        for await (const c of entry as AsyncIterable<Buffer>) h.update(c);
        hash = h.digest('hex');
      } else {
        entry.resume();
      }
      tree.put(
        segments,
        {
          type,
          mode: guardMode(entry.mode, type),
          size: type === 'file' ? entry.size : 0,
          mtime: entry.mtime?.getTime() ?? 0,
          linkpath,
          hash,
          source: { layer: li, ordinal },
        },
        entry.path,
      );
    });
    options.onLayerDone?.(li, tree);
  }
  return tree;
}

/** True when `path` is inside one of `filters` or is an ancestor directory of one. No filters = everything. */
export function pathFilter(filters: string[][] | undefined): (segments: string[]) => boolean {
  if (!filters) return () => true;
  return (segments) =>
    filters.some((f) => {
      const n = Math.min(f.length, segments.length);
      for (let i = 0; i < n; i++) if (f[i] !== segments[i]) return false;
      return true;
    });
}


/**
 * Host restore of a chain in one pass: applies each layer in order into `staging` through one
 * `GuardedExtractor` (whiteouts delete what lower layers wrote), checking each blob's digest as it streams.
 * A layer whose digest is wrong fails the restore before the staging directory is ever swapped in.
 * `filters` (guarded segments) restricts it to those paths. Returns entries and content bytes. When `signal`
 * aborts, reading stops and `MnemaraError('INTERRUPTED')` is thrown (the caller removes `staging`).
 */
export async function extractChain(
  blobs: BlobStore,
  chain: Chain,
  staging: string,
  options: { limits: RestoreLimits; filters?: string[][]; onProgress?: OnProgress; signal?: AbortSignal },
): Promise<{ files: number; bytes: number }> {
  const totalBytes = chain.layers.reduce((n, l) => n + l.uncompressedBytes, 0);
  const compressed = chain.layers.reduce((n, l) => n + l.compressedBytes, 0);
  // Files are created on a writer thread when the chain is large enough to pay for starting one (as for
  // inflating), and the whole tree is written: a `paths` restore (a memory layout) writes too little to gain.
  const queue = !options.filters && compressed >= restoreTuning.writerMinBytes ? new WriteQueue() : undefined;
  try {
    const progress = options.onProgress ? { onProgress: options.onProgress, step: 'restore', totalBytes } : undefined;
    const x = new GuardedExtractor(staging, options.limits, progress, undefined, queue);
    const keep = options.filters ? pathFilter(options.filters) : undefined;
    for (const [li, layer] of chain.layers.entries()) {
      await readLayer(blobs, chain.id, layer, x.budget, x.handler({ layer: li, whiteouts: true, ...(keep ? { keep } : {}) }), options.signal);
    }
    await x.flush();
    await resolveDeferredLinks(blobs, chain, staging, x, options);
    const result = await x.finish();
    if (options.signal?.aborted) throw interrupted(chain.id);
    return result;
  } finally {
    // Stopped before the caller removes `staging`: nothing may still be writing into it.
    await queue?.close();
  }
}

/**
 * Whole-tree restores of chains whose compressed bytes reach `writerMinBytes` run with a writer thread
 * (`WriteQueue`); smaller ones and `paths` restores on the main thread. Tests set it to 0 so the hostile-archive cases run on both paths.
 */
export const restoreTuning = { writerMinBytes: WORKER_MIN_BYTES };

/**
 * Second pass of a filtered restore, only when it kept hard links whose targets it left out: those targets
 * alone are extracted into a side directory of `staging`, and each link is made a link to its target's
 * content there; the side directory is then removed, so the link stays as a file with that content (the
 * path filter did not ask for the rest of its group). A target the chain does not hold is refused as before.
 */
async function resolveDeferredLinks(
  blobs: BlobStore,
  chain: Chain,
  staging: string,
  x: GuardedExtractor,
  options: { limits: RestoreLimits; signal?: AbortSignal },
): Promise<void> {
  const open = x.unresolved.filter((u) => x.tree.get(u.segments)?.entry === u.entry);
  if (open.length === 0) return;
  const side = join(staging, '.mnemara-link-targets');
  const y = new GuardedExtractor(side, options.limits);
  const keep = pathFilter(open.map((u) => u.target));
  try {
    // Made here: a target at the top level has no parent directory for the extractor to make (a link the run
    // added to an unchanged top-level file made apply fail with ENOENT, reported as a corrupt snapshot).
    await mkdir(fsPath(side), { recursive: true });
    for (const [li, layer] of chain.layers.entries()) {
      await readLayer(blobs, chain.id, layer, y.budget, y.handler({ layer: li, whiteouts: true, keep }), options.signal);
    }
    for (const u of open) {
      if (y.tree.get(u.target)?.entry.type !== 'file') {
        throw new UnsafeArchiveError('hardlink to something that is not a file already extracted', u.segments.join('/'));
      }
      linkSync(fsPath(join(side, ...u.target)), fsPath(join(staging, ...u.segments)));
    }
  } finally {
    await rm(fsPath(side), { recursive: true, force: true });
  }
}
