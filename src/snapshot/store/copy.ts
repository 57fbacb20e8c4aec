import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { indexDigests } from '../tree-index.js';
import { MnemaraError } from '../../config/errors.js';
import { noProgress, type OnProgress } from '../../config/progress.js';
import { SnapshotCorruptError, SnapshotNotFoundError } from '../errors.js';
import type { Manifest } from '../types.js';
import { isS3Store, type AnyStore } from './open.js';

/** What `copyLineage` did. Byte counts are of stored (compressed) blobs. */
export interface CopyReport {
  lineage: string;
  /** Snapshots written to the destination (those it lacked), oldest first. */
  copied: string[];
  /** Blobs sent and bytes they hold; blobs the destination already had are `skippedBlobs`. */
  blobs: number;
  bytes: number;
  skippedBlobs: number;
  /** The destination's head after the copy. */
  head: string | null;
  /** `fast-forward`, `unchanged`, or `diverged` (the destination's head is not an ancestor of the source's: left alone). */
  headMove: 'fast-forward' | 'unchanged' | 'diverged';
}

async function has(store: AnyStore, id: string): Promise<boolean> {
  try {
    await store.get(id);
    return true;
  } catch (err) {
    if (err instanceof SnapshotNotFoundError) return false;
    throw err;
  }
}

/** A local file holding `digest` from `store` (an S3 store downloads it into its cache first, checked by digest). */
async function localBlob(store: AnyStore, m: Manifest, digest: string, onProgress: OnProgress): Promise<string> {
  if (isS3Store(store)) {
    const got = await store.blobs.fetch(digest, onProgress);
    if (got === 'missing') throw new SnapshotCorruptError(m.id, `blob ${digest} is missing from ${store.root}`);
    if (typeof got === 'object') throw new SnapshotCorruptError(m.id, `blob ${digest} in ${store.root} hashes to ${got.mismatch}`);
    return store.cache.blobs.pathOf(digest);
  }
  if (!(await store.blobs.has(digest))) throw new SnapshotCorruptError(m.id, `blob ${digest} is missing from ${store.root}`);
  return store.blobs.pathOf(digest);
}

async function destHasBlob(store: AnyStore, digest: string): Promise<boolean> {
  return isS3Store(store) ? store.blobs.has(digest) : store.blobs.has(digest);
}

async function putBlob(store: AnyStore, m: Manifest, digest: string, path: string, onProgress: OnProgress): Promise<void> {
  if (isS3Store(store)) {
    await store.blobs.upload(digest, onProgress, path);
    return;
  }
  const written = await store.blobs.write(createReadStream(path));
  if (written.digest !== digest) {
    await store.blobs.remove(written.digest);
    throw new SnapshotCorruptError(m.id, `blob ${digest} hashes to ${written.digest} while copied`);
  }
}

/** True when `ancestor` is `id` or on `id`'s parent chain in `store`. */
async function isAncestor(store: AnyStore, ancestor: string, id: string): Promise<boolean> {
  for (let cur: string | null = id, hops = 0; cur !== null && hops < 100_000; hops++) {
    if (cur === ancestor) return true;
    cur = (await store.get(cur).catch(() => null))?.parent ?? null;
  }
  return false;
}

/**
 * Copies lineage `lineage` from `from` to `to` (any two stores: a laptop's directory store and a team's bucket):
 * every snapshot of the lineage the destination lacks, sending only the blobs it lacks (blobs first, manifest
 * last, so a copy cut short lists nothing half-copied). The destination's head then moves to the source's by
 * compare-and-swap when it is unset or an ancestor of it (fast-forward); a diverged head is left alone and
 * reported. Throws `MnemaraError('NOT_FOUND')` when the source has no such lineage, `SnapshotCorruptError` for a
 * missing or damaged source blob, `HeadConflictError` when the destination's head moves during the copy.
 */
export async function copyLineage(from: AnyStore, to: AnyStore, lineage: string, options: { onProgress?: OnProgress } = {}): Promise<CopyReport> {
  const onProgress = options.onProgress ?? noProgress;
  const srcHead = await from.getHead(lineage);
  const snapshots = await from.list({ lineage });
  if (srcHead === null && snapshots.length === 0) {
    throw new MnemaraError('NOT_FOUND', `lineage ${lineage} has no snapshots in ${from.root}`, { hint: `mnemara snapshot list --store ${from.root} shows its lineages.` });
  }
  // The head's chain may reach into other lineages (a branch point): copy every snapshot a head needs.
  if (srcHead && !snapshots.some((m) => m.id === srcHead)) snapshots.push(await from.get(srcHead));
  const report: CopyReport = { lineage, copied: [], blobs: 0, bytes: 0, skippedBlobs: 0, head: null, headMove: 'unchanged' };
  const seen = new Set<string>();
  onProgress({ step: 'copy', phase: 'start', message: `${lineage}: ${from.root} → ${to.root}`, total: snapshots.length, unit: 'entries' });
  for (const m of snapshots.sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (await has(to, m.id)) continue;
    for (const digest of [...m.layers.map((l) => l.digest), ...indexDigests(m)]) {
      if (seen.has(digest)) continue;
      seen.add(digest);
      if (await destHasBlob(to, digest)) {
        report.skippedBlobs += 1;
        continue;
      }
      const path = await localBlob(from, m, digest, onProgress);
      await putBlob(to, m, digest, path, onProgress);
      report.blobs += 1;
      report.bytes += (await stat(path)).size;
    }
    if (isS3Store(to)) await to.putManifest(m);
    else await to.manifests.write(m);
    report.copied.push(m.id);
    onProgress({ step: 'copy', phase: 'progress', message: m.id, done: report.copied.length, total: snapshots.length, unit: 'entries' });
  }
  const destHead = await to.getHead(lineage);
  report.head = destHead;
  if (srcHead && destHead !== srcHead) {
    if (destHead === null || (await isAncestor(from, destHead, srcHead))) {
      await to.advanceHead(lineage, destHead, srcHead);
      report.head = srcHead;
      report.headMove = 'fast-forward';
    } else report.headMove = 'diverged';
  }
  onProgress({ step: 'copy', phase: 'end', message: `${report.copied.length} snapshot(s), ${report.blobs} blob(s) sent, ${report.skippedBlobs} already there` });
  return report;
}
