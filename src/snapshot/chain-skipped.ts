import { SnapshotNotFoundError } from './errors.js';
import type { Manifest, SnapshotStore } from './types.js';

/** A path a snapshot of a chain left out when it was taken (its manifest's `skipped`), and which snapshot. */
export interface ChainSkip {
  snapshot: string;
  path: string;
  reason: string;
}

/**
 * What the snapshots of `id`'s chain (itself, then its parents) left out when they were taken: paths deeper or
 * longer than a restore accepts, unreadable files, sockets. A restore of `id` gives none of them back, and said
 * nothing about it (trial 21 F6: a `deep/` of 256 levels came back without its `bottom.txt`). A path that a later
 * snapshot of the chain holds after all is not listed. At most `max` entries (newest snapshot first). The walk ends
 * at a parent no longer in the store. Throws what `store.get` throws for `id` itself (`SnapshotNotFoundError`).
 */
export async function skippedInChain(store: Pick<SnapshotStore, 'get'>, id: string, max = 100): Promise<ChainSkip[]> {
  const out: ChainSkip[] = [];
  const seen = new Set<string>();
  for (let at: string | null = id; at !== null && !seen.has(at) && out.length < max; ) {
    seen.add(at);
    // A parent pruned since (`snapshot prune --keep 1`) is no part of the restore: its layers are the snapshot's own
    // (`layers` lists the whole chain). The restore worked and had ended with NOT_FOUND, exit 2 (trial 23 F10).
    const m: Manifest | null = await store.get(at).catch((err: unknown) => {
      if (at !== id && err instanceof SnapshotNotFoundError) return null;
      throw err;
    });
    if (m === null) break;
    for (const s of m.skipped ?? []) if (out.length < max && !out.some((o) => o.path === s.path)) out.push({ snapshot: m.id, path: s.path, reason: s.reason });
    at = m.parent;
  }
  return out;
}
