import type { MergedTree, TreeNode } from './tree.js';

/**
 * What a subset export (`exportTar(id, { paths })`) must read: only the layers that carry a surviving entry
 * under the requested paths. Exporting `memories/` of a snapshot whose base layer is a 200 MB tree inflated that
 * whole layer to send a few kilobytes (issue 15: a session's cost should follow what changed).
 */
export interface SubsetPlan {
  /** Indexes of the chain's layers that carry an entry to write; the others are never opened. */
  layers: Set<number>;
  /**
   * Hard links under the requested paths whose target is left out, by target path: their content is written
   * from the target's entry (the first link as a file, the others as links to it), so a link never arrives
   * without its bytes.
   */
  linksByTarget: Map<string, string[]>;
}

/**
 * Plans a subset export of `tree` for the paths `keep` accepts. `layerOf` names the layer that carries a node
 * (from the tree index's survivors, or the node's own `source` when the chain was scanned); -1 for a node no
 * layer carries (an implied directory). Directories are written from the tree, so they need no layer.
 */
export function planSubset(tree: MergedTree, keep: (segments: string[]) => boolean, layerOf: (path: string, node: TreeNode) => number): SubsetPlan {
  const layers = new Set<number>();
  const linksByTarget = new Map<string, string[]>();
  for (const { path, segments, node } of tree.walk()) {
    if (node.entry.type === 'dir' || !keep(segments)) continue;
    // The link's own entry is read too: it is checked against the index like every other entry.
    layers.add(layerOf(path, node));
    const { linkpath } = node.entry;
    if (node.entry.type !== 'hardlink' || linkpath === undefined || keep(linkpath.split('/'))) continue;
    const target = tree.get(linkpath.split('/'));
    if (!target || target.entry.type !== 'file') continue; // the guard refuses it where it is read
    linksByTarget.set(linkpath, [...(linksByTarget.get(linkpath) ?? []), path]);
    layers.add(layerOf(linkpath, target));
  }
  layers.delete(-1);
  return { layers, linksByTarget };
}
