import type { BlobStore } from './blobs.js';
import { writeMerged } from './export.js';
import { scanChain, type Chain } from './layers.js';
import type { TarWriter } from './tar-write.js';
import type { MergedTree } from './tree.js';
import type { RestoreLimits } from './types.js';

/**
 * A folded delta is kept (instead of squashing the whole chain into one full layer) while its uncompressed
 * size is at most this fraction of the full base's: restoring then writes at most 1.5× the tree.
 */
export const FOLD_FRACTION = 0.5;

/**
 * Folds the delta layers of `chain` (all but its first, full layer) into one delta on that first layer, written
 * onto `writer`: every entry the deltas contributed to the merged tree, plus a `.wh.<name>` whiteout for each
 * path of the base that the merged tree lacks (only where the parent is still a directory: a removed or replaced
 * parent takes its subtree with it). Applied on the base, it yields the same merged tree as the whole chain, so
 * a long chain of small snapshots costs what changed since the base, not another copy of the tree (what a full
 * squash costs). Every blob is digest-checked and every entry guarded as it is read (pass 1, then pass 2).
 * Returns the merged tree, the entries written and their content bytes.
 */
export async function writeFolded(
  blobs: BlobStore,
  chain: Chain,
  writer: TarWriter,
  limits: RestoreLimits,
): Promise<{ tree: MergedTree; entries: number; bytes: number }> {
  const base = new Map<string, string>();
  const tree = await scanChain(blobs, chain, limits, {
    onLayerDone: (li, t) => {
      if (li === 0) for (const { path, node } of t.walk()) base.set(path, node.entry.type);
    },
  });
  const merged = new Map<string, string>();
  for (const { path, node } of tree.walk()) merged.set(path, node.entry.type);
  let entries = 0;
  for (const path of base.keys()) {
    if (merged.has(path)) continue;
    const cut = path.lastIndexOf('/');
    const parent = cut < 0 ? '' : path.slice(0, cut);
    if (parent !== '' && merged.get(parent) !== 'dir') continue;
    await writer.file({ path: `${cut < 0 ? '' : `${parent}/`}.wh.${path.slice(cut + 1)}`, mode: 0o644, mtime: 0 }, Buffer.alloc(0));
    entries += 1;
  }
  const { files, bytes } = await writeMerged(blobs, chain, tree, writer, { limits, fromLayer: 1, basePaths: new Set(base.keys()) });
  return { tree, entries: entries + files, bytes };
}
