import { logger } from '../config/logger.js';
import { resolveLimits } from '../snapshot/limits.js';
import { resolveHardLink, type MergedTree, type TreeEntry } from '../snapshot/tree.js';
import type { Manifest, SnapshotStore } from '../snapshot/types.js';

const log = logger('session');

/** What `codeOnHead` needs of a store: manifests, and a snapshot's merged tree with content hashes. */
type TreeSource = Pick<SnapshotStore, 'get'> & {
  /** DirectoryStore: the tree from the snapshot's tree index (cheap), else by scanning its chain. */
  parentTree?: (m: Manifest, limits: ReturnType<typeof resolveLimits>) => Promise<MergedTree>;
  /** Any store: the tree by scanning the chain. */
  tree?: (id: string, options: { hashContent: boolean }) => Promise<MergedTree>;
};

/** Path → `type:mode:hash:link` of every entry outside `exclude` (top-level directory names). */
function flatten(tree: MergedTree, exclude: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  const key = (e: TreeEntry): string => `${e.type}:${e.mode.toString(8)}:${e.type === 'file' ? (e.hash ?? `?${e.size}`) : ''}:${e.linkpath ?? ''}`;
  // A hard link is the file it names: which of two names a pack gave the content to is no change of code.
  for (const { path, segments, node } of tree.walk()) if (!exclude.has(segments[0]!)) out.set(path, key(resolveHardLink(tree, node.entry)));
  return out;
}

/** A snapshot's merged tree with content hashes, from the tree index where the store has one. */
function treeReader(store: TreeSource): (id: string) => Promise<MergedTree> {
  const limits = resolveLimits();
  return async (id) => {
    if (store.parentTree) return store.parentTree(await store.get(id), limits);
    if (store.tree) return store.tree(id, { hashContent: true });
    throw new Error('the store cannot give a snapshot tree');
  };
}

/**
 * True when everything the session changed in its workspace is already on `head`: for every path (outside the
 * memory layout's directories `layoutDirs`) where the session's workspace snapshot differs from the snapshot it
 * started from (its `parent`; nothing for a fresh start), the head has exactly the session's version (or lacks
 * the path too). Equal trees are the simplest case; another session that made the same change is the common
 * one under contention. Such a session needs no branch: its code is on the head. Trees come from the tree
 * indexes where the store has them. Any failure to read a tree gives `false` (keep the branch: nothing lost).
 */
export async function codeOnHead(store: TreeSource, workspaceSnapshot: string, head: string, layoutDirs: string[]): Promise<boolean> {
  const treeOf = treeReader(store);
  try {
    const exclude = new Set(layoutDirs.map((d) => d.split('/')[0]!));
    const ours = await store.get(workspaceSnapshot);
    const [w, h, p] = await Promise.all([treeOf(workspaceSnapshot), treeOf(head), ours.parent ? treeOf(ours.parent) : null]);
    const mine = flatten(w, exclude);
    const theirs = flatten(h, exclude);
    const before = p ? flatten(p, exclude) : new Map<string, string>();
    for (const path of new Set([...mine.keys(), ...before.keys()])) {
      const now = mine.get(path);
      if (now === before.get(path)) continue; // not changed by this session
      if (theirs.get(path) !== now) return false;
    }
    return true;
  } catch (err) {
    log.warn({ workspaceSnapshot, head, err: (err as Error).message }, 'could not compare the session code with the head; keeping it on a branch');
    return false;
  }
}

/**
 * True when snapshots `a` and `b` hold the same code: every entry outside the memory layout's directories
 * (`layoutDirs`) is the same (type, mode, content hash, link target). A head that moved from `a` to `b` this way
 * moved only in its memory (a hand memory edit, `memory forget`, another session's memory-only publish), so a
 * session that started from `a` can put its code on it. Any failure to read a tree gives `false`.
 */
export async function sameCode(store: TreeSource, a: string, b: string, layoutDirs: string[]): Promise<boolean> {
  if (a === b) return true;
  const treeOf = treeReader(store);
  try {
    const exclude = new Set(layoutDirs.map((d) => d.split('/')[0]!));
    const [x, y] = await Promise.all([treeOf(a), treeOf(b)]).then(([t, u]) => [flatten(t, exclude), flatten(u, exclude)] as const);
    if (x.size !== y.size) return false;
    for (const [path, key] of x) if (y.get(path) !== key) return false;
    return true;
  } catch (err) {
    log.warn({ a, b, err: (err as Error).message }, 'could not compare the code of two snapshots; treating it as changed');
    return false;
  }
}
