import { SnapshotCorruptError, UnsafeArchiveError } from './errors.js';
import { readLayer, type Chain } from './layers.js';
import type { BlobStore } from './blobs.js';
import { ArchiveBudget, guardPath, guardSymlinkTarget, guardType } from './restore-guard.js';
import type { MergedTree, TreeNode } from './tree.js';
import type { RestoreLimits } from './types.js';

/** Decides which layer entry carries each path of a merged tree that came from a tree index (no layer ordinals). */
export interface Survivors {
  /**
   * True when entry `ordinal` of layer `layer`, at `path` (guarded, `/`-joined), is the one the merged tree
   * keeps for `node`. Throws `SnapshotCorruptError` when the entry does not match the index (type, size) or
   * the base layer names a path twice.
   */
  pick(layer: number, ordinal: number, path: string, node: TreeNode, entry: { type: string; size: number }): boolean;
  /** The layer whose entry carries `path` (`/`-joined, guarded): the last layer above the base naming it, else the base (0). */
  layerOf(path: string): number;
  /** Whether entry `ordinal` of layer `layer` is the one that carries `path`; no check, no count (see `pick`). */
  carries(layer: number, ordinal: number, path: string): boolean;
  /** After every layer was read: throws `SnapshotCorruptError` when the index holds a path no layer carried. */
  done(expected: number): void;
}

/**
 * The export's pass 1 without reading the base layer: the merged tree is the snapshot's tree index (read and
 * checked by `readTreeIndex`: digests, restore guard), and only the layers above the base (deltas, small) are
 * scanned, to learn which of their entries is the last one at each path. An entry of the base survives when the
 * index has its path and no later layer names it; a later layer's entry survives when it is the last at its path.
 * What the index says must match what the layers hold (type, size; link targets pass the guard again), and every
 * path it lists must be carried by some layer, or the export fails with `SnapshotCorruptError`: the layers' own
 * digests are checked as they stream (`readLayer`), the index's when it was read.
 */
export async function survivorsFromIndex(blobs: BlobStore, chain: Chain, tree: MergedTree, limits: RestoreLimits): Promise<Survivors> {
  const last = new Map<string, { layer: number; ordinal: number }>();
  const budget = new ArchiveBudget(limits);
  for (const [li, layer] of chain.layers.entries()) {
    if (li === 0) continue;
    let ordinal = -1;
    await readLayer(blobs, chain.id, layer, budget, async (entry) => {
      ordinal += 1;
      entry.resume();
      budget.onHeader(entry.path, entry.size);
      const segments = guardPath(entry.path, limits);
      if (segments.length === 0 || segments[segments.length - 1]!.startsWith('.wh.')) return;
      last.set(segments.join('/'), { layer: li, ordinal });
    });
  }
  const seenInBase = new Set<string>();
  let carried = 0;
  return {
    layerOf: (path) => last.get(path)?.layer ?? 0,
    carries(layer, ordinal, path) {
      const later = last.get(path);
      return layer === 0 ? !later : later?.layer === layer && later.ordinal === ordinal;
    },
    pick(layer, ordinal, path, node, entry) {
      if (node.entry.type === 'dir') return false;
      const later = last.get(path);
      if (layer === 0) {
        if (seenInBase.has(path)) throw new SnapshotCorruptError(chain.id, `its base layer names ${path} twice`);
        seenInBase.add(path);
        if (later) return false;
      } else if (!later || later.layer !== layer || later.ordinal !== ordinal) {
        return false;
      }
      const { type, size, linkpath } = node.entry;
      if (guardType(entry.type, path) !== type || (type === 'file' && size !== entry.size)) {
        throw new SnapshotCorruptError(chain.id, `its tree index does not match its layers at ${path} (index: ${type} of ${size} bytes; layer: ${entry.type} of ${entry.size})`);
      }
      if (type === 'symlink') guardSymlinkTarget(linkpath ?? '', path);
      if (type === 'hardlink' && tree.get(guardPath(linkpath ?? '', limits))?.entry.type !== 'file') {
        throw new UnsafeArchiveError('hardlink to something that is not a file in the snapshot', path);
      }
      carried += 1;
      return true;
    },
    done(expected) {
      if (carried !== expected) throw new SnapshotCorruptError(chain.id, `its tree index lists ${expected} files and links, its layers carry ${carried} of them`);
    },
  };
}
