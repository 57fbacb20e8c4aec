/**
 * A host directory read once for `snapshot patch` and `apply`: its files as git sees them (for the patch), its
 * files' inodes and its directories (for the hard links and directories `apply-structure.ts` makes), and every
 * path's latest mtime/ctime (for apply's host-changed guard). One walk: on a real tree with node_modules each walk
 * costs seconds, and apply used to walk the host three times and make the patch twice.
 */
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { FileState } from './patch.js';
import { walkTree } from './walk.js';

/** The host directory as `apply-structure.ts` sees it: files with their inode, and directories. */
export interface HostShape {
  files: Map<string, { inode: string; nlink: number }>;
  dirs: Set<string>;
  /** Each directory's permission bits. */
  dirModes: Map<string, number>;
  /** Directories that hold nothing but directories at any depth. */
  emptyDirs: Set<string>;
}

/** One read of a host directory (what `left` leaves out is not in it). */
export interface HostTree {
  /** Files and symlinks as git sees them; no content hash (the patch hashes only where it compares). */
  files: Map<string, FileState>;
  shape: HostShape;
  /** Every path's `lstat`, in walk order: `.` for the root, `dir/` for a directory (apply's host-changed guard). */
  stamps: Array<{ path: string; stats: Stats }>;
}

/**
 * Reads `dir` once, leaving out what `left` (the patch's filter) leaves out; what it leaves out, and what the walk
 * skips (a FIFO, an unreadable file), still keeps its directory from counting as empty. Throws what `lstat`
 * throws for `dir` itself.
 */
export async function readHostTree(dir: string, left: (path: string) => boolean): Promise<HostTree> {
  const files = new Map<string, FileState>();
  const shape: HostShape = { files: new Map(), dirs: new Set(), dirModes: new Map(), emptyDirs: new Set() };
  const stamps = [{ path: '.', stats: await lstat(dir) }];
  const hasFile = new Set<string>();
  const ignore = (p: string): boolean => left(p) && (markParents(hasFile, p), true);
  for await (const e of walkTree(dir, [], { ignore, onSkip: (s) => markParents(hasFile, s.path) })) {
    stamps.push({ path: e.type === 'dir' ? `${e.path}/` : e.path, stats: e.stats });
    if (e.type === 'dir') {
      shape.dirs.add(e.path);
      shape.dirModes.set(e.path, e.stats.mode & 0o7777);
      continue;
    }
    markParents(hasFile, e.path);
    if (e.type === 'file') shape.files.set(e.path, { inode: `${e.stats.dev}:${e.stats.ino}`, nlink: e.stats.nlink });
    files.set(e.path, {
      type: e.type,
      exec: e.type === 'file' && (e.stats.mode & 0o100) !== 0,
      size: e.type === 'file' ? e.stats.size : 0,
      ...(e.linkpath !== undefined ? { linkpath: e.linkpath } : {}),
    });
  }
  shape.emptyDirs = new Set([...shape.dirs].filter((d) => !hasFile.has(d)));
  return { files, shape, stamps };
}

/** Adds every parent directory of `path` to `set`. */
export function markParents(set: Set<string>, path: string): void {
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) set.add(path.slice(0, i));
}
