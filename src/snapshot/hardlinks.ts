import type { Stats } from 'node:fs';

/**
 * Hard-link groups met while one tree is packed (uv and pnpm fill trees with them). The first path of a
 * group in walk order carries the content; every later path of the same inode (`dev:ino`) becomes a tar
 * hard-link entry (`Link`, type flag `1`) naming that first path, so a restore links them again instead of
 * writing copies. Only paths packed from the same tree are ever named: a file whose other links lie outside
 * the packed tree (or outside a scoped pack) is packed as a plain file, so a link never points out of the
 * snapshot. A restore accepts a link only to a file it already wrote (`GuardedExtractor`), which is the
 * order this walk produces (parents before children, names in byte order).
 */
export class HardLinkGroups {
  private readonly first = new Map<string, string>();

  /** The path already packed with the same inode as `stats` (a regular file with more than one link), if any. */
  targetOf(stats: Stats): string | undefined {
    if (!stats.isFile() || stats.nlink < 2) return undefined;
    return this.first.get(`${stats.dev}:${stats.ino}`);
  }

  /** Records `path` as packed with its content (call only once it is really in the layer or the tree). */
  packed(path: string, stats: Stats): void {
    if (!stats.isFile() || stats.nlink < 2) return;
    const key = `${stats.dev}:${stats.ino}`;
    if (!this.first.has(key)) this.first.set(key, path);
  }

  /** The file recorded for `stats`'s inode turned out not to be packed (unreadable, deleted): the next path carries the content. */
  forget(path: string, stats: Stats): void {
    const key = `${stats.dev}:${stats.ino}`;
    if (this.first.get(key) === path) this.first.delete(key);
  }
}
