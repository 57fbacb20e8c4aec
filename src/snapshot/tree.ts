import { UnsafeArchiveError } from './errors.js';
import type { GuardedType } from './restore-guard.js';

/** Where a tree entry's content lives: layer index in the chain and the entry's ordinal in that layer. */
export interface EntrySource {
  layer: number;
  ordinal: number;
}

/** One path of a merged tree. `size` in bytes; `mtime` in ms since the epoch; `hash` = sha256 hex of content. */
export interface TreeEntry {
  type: GuardedType;
  mode: number;
  size: number;
  mtime: number;
  linkpath?: string;
  hash?: string;
  /**
   * Host-dir packs only: `dev:ino:size:mtimeMs:ctimeMs` of the source file when its content was hashed,
   * recorded only when its ctime was well before the pack began (so a later write must change it).
   */
  fingerprint?: string;
  /** `null` for directories implied by a deeper path but never listed themselves. */
  source: EntrySource | null;
}

export interface TreeNode {
  entry: TreeEntry;
  children?: Map<string, TreeNode>;
}

/** One node of `MergedTree.walk`: its `/`-joined path, its segments (split on first use), the node. */
export class WalkItem {
  constructor(
    readonly path: string,
    readonly node: TreeNode,
  ) {}

  get segments(): string[] {
    return this.path.split('/');
  }
}

const IMPLIED_DIR: Omit<TreeEntry, 'source'> = { type: 'dir', mode: 0o755, size: 0, mtime: 0 };

/**
 * The merged view of a chain of layers (or of one archive), built entry by entry with OCI semantics:
 * a later entry replaces an earlier one; a non-directory replaces a whole subtree; `.wh.<name>` deletes
 * `<name>` from lower layers; `.wh..wh..opq` hides everything lower layers put in its directory.
 * Writes never pass through a symlink or a file: an entry whose parent is not a directory is refused.
 */
export class MergedTree {
  readonly root: TreeNode = { entry: { ...IMPLIED_DIR, source: null }, children: new Map() };

  /** Node at `segments`, or undefined. */
  get(segments: string[]): TreeNode | undefined {
    let node: TreeNode | undefined = this.root;
    for (const seg of segments) {
      node = node.children?.get(seg);
      if (!node) return undefined;
    }
    return node;
  }

  /** The directory that will hold `segments`, creating implied directories; throws when a parent is not a dir. */
  private parentOf(segments: string[], rawPath: string): Map<string, TreeNode> {
    let node = this.root;
    for (let i = 0; i < segments.length - 1; i++) {
      const seg = segments[i]!;
      let child = node.children!.get(seg);
      if (!child) {
        child = { entry: { ...IMPLIED_DIR, source: null }, children: new Map() };
        node.children!.set(seg, child);
      } else if (child.entry.type !== 'dir') {
        throw new UnsafeArchiveError(`path goes through a ${child.entry.type}, not a directory`, rawPath);
      }
      node = child;
    }
    return node.children!;
  }

  /** Records an entry (the guard has already checked its path and type). */
  put(segments: string[], entry: TreeEntry, rawPath: string): void {
    if (segments.length === 0) return;
    const dir = this.parentOf(segments, rawPath);
    const name = segments[segments.length - 1]!;
    const existing = dir.get(name);
    if (entry.type === 'dir') {
      if (existing?.entry.type === 'dir') existing.entry = entry;
      else dir.set(name, { entry, children: new Map() });
      return;
    }
    dir.set(name, { entry });
  }

  /**
   * Applies `.wh.<name>` found at `segments` (the whiteout's own path) from layer `layer`: only what lower
   * layers put there is removed. Returns the removed paths (as segments; a removed directory is listed once,
   * not its content), so an extractor can mirror the removal on disk.
   */
  whiteout(segments: string[], layer: number, rawPath: string): string[][] {
    const dir = this.parentOf(segments, rawPath);
    const parent = segments.slice(0, -1);
    const base = segments[segments.length - 1]!;
    const removed: string[][] = [];
    if (base === '.wh..wh..opq') {
      for (const [name, node] of dir) if (dropLower(node, layer, [...parent, name], removed)) {
        dir.delete(name);
        removed.push([...parent, name]);
      }
      return removed;
    }
    const name = base.slice('.wh.'.length);
    const victim = dir.get(name);
    if (victim && (victim.entry.source?.layer ?? -1) < layer) {
      dir.delete(name);
      removed.push([...parent, name]);
    }
    return removed;
  }

  /** Every node, parents before children, names in byte order; `path` is `/`-joined. */
  *walk(node: TreeNode = this.root, prefix = ''): Generator<WalkItem> {
    // An explicit stack: a recursive `yield*` hands every item up through one generator per level (node_modules
    // nests ten deep), and the walk runs over the whole tree several times per snapshot.
    const stack: Array<{ node: TreeNode; prefix: string; names: string[]; next: number }> = [];
    if (node.children) stack.push({ node, prefix, names: [...node.children.keys()].sort(), next: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next === top.names.length) {
        stack.pop();
        continue;
      }
      const name = top.names[top.next++]!;
      const child = top.node.children!.get(name)!;
      const path = top.prefix ? `${top.prefix}/${name}` : name;
      yield new WalkItem(path, child);
      // Listed after the yield, as the recursive walk did: a caller may change the tree between items.
      if (child.children) stack.push({ node: child, prefix: path, names: [...child.children.keys()].sort(), next: 0 });
    }
  }

  /** Forgets the node at `segments` (and what is under it). */
  remove(segments: string[]): void {
    this.get(segments.slice(0, -1))?.children?.delete(segments[segments.length - 1]!);
  }
}

/**
 * Removes what lower layers put under `node` (recording partial removals in `removed`); true when nothing of
 * this layer is left, so the caller removes `node` itself.
 */
function dropLower(node: TreeNode, layer: number, at: string[], removed: string[][]): boolean {
  const own = (node.entry.source?.layer ?? -1) >= layer;
  if (node.children) {
    const gone: string[] = [];
    for (const [name, child] of node.children) if (dropLower(child, layer, [...at, name], removed)) gone.push(name);
    if (!own && node.children.size > gone.length) {
      for (const name of gone) {
        node.children.delete(name);
        removed.push([...at, name]);
      }
      return false;
    }
    if (own) for (const name of gone) {
      node.children.delete(name);
      removed.push([...at, name]);
    }
  }
  return !own;
}

/**
 * The entry a hard-link entry stands for: its target's (type `file`, the target's mode, size and hash: one inode,
 * two names), found in `tree`; any other entry, or a link whose target is not a file of the tree, as it is.
 */
export function resolveHardLink(tree: MergedTree, entry: TreeEntry): TreeEntry {
  if (entry.type !== 'hardlink' || entry.linkpath === undefined) return entry;
  const target = tree.get(entry.linkpath.split('/'))?.entry;
  return target?.type === 'file' ? target : entry;
}
