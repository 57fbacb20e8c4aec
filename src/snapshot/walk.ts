import { lstat, readlink } from 'node:fs/promises';
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RESTORE_LIMITS, TOO_LONG_TO_READ } from './limits.js';
import { decodeName, displayName, fsPath } from './names.js';
import { guardPath } from './restore-guard.js';
import { UnsafeArchiveError } from './errors.js';

/** One thing found in a source directory. `path` is `/`-separated and relative to the root. */
export interface WalkEntry {
  path: string;
  segments: string[];
  type: 'file' | 'dir' | 'symlink';
  stats: Stats;
  linkpath?: string;
}

/**
 * `dev:ino:size:mtimeMs:ctimeMs:mode` of a file: equal keys from two stat calls mean the same inode, not
 * written or chmod'ed in between (any write or chmod moves ctime).
 */
export function statKey(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.mode}`;
}

/** A path the walk left out on purpose, and why (reported as a warning, never silently). */
export interface WalkSkip {
  path: string;
  reason: string;
}

/** What a non-file, non-directory, non-link is called in a skip reason. */
export function specialKind(stats: Stats): string {
  return stats.isFIFO() ? 'FIFO' : stats.isSocket() ? 'socket' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'device file' : 'special file';
}

/**
 * Walks `root/start` depth-first, parents before children, names in byte order (so layers are
 * reproducible). Leaves out, reporting each through `onSkip` (ignored paths silently): sockets, FIFOs and
 * devices (opening a FIFO would hang); names starting with `.wh.` (they would read as whiteouts); directories
 * it may not read; paths deeper or longer than a restore's default limits (a restore would refuse them).
 * Symlinks are yielded as links wherever they point, never followed. Names that are not UTF-8 are kept
 * (escaped, `names.ts`).
 */
export async function* walkTree(
  root: string,
  start: string[],
  options: { ignore: (path: string) => boolean; onSkip: (skip: WalkSkip) => void },
): AsyncGenerator<WalkEntry> {
  const startPath = start.join('/');
  let stats: Stats;
  try {
    stats = await lstat(fsPath(join(root, ...start)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (start.length > 0) {
    const entry = await classify(root, start, stats, options);
    if (!entry) return;
    yield entry;
    if (entry.type !== 'dir') return;
  }
  yield* walkDir(root, startPath, options);
}

/**
 * The walk below `rel`, one directory listing at a time on an explicit stack: a recursive `yield*` chain of async
 * generators costs every entry a promise hop per level it is nested in (node_modules nests 10 deep).
 */
async function* walkDir(
  root: string,
  rel: string,
  options: { ignore: (path: string) => boolean; onSkip: (skip: WalkSkip) => void },
): AsyncGenerator<WalkEntry> {
  const stack: Array<{ rel: string; names: string[]; next: number }> = [];
  const enter = async (dir: string): Promise<void> => {
    const names = await listDir(root, dir, options);
    if (names) stack.push({ rel: dir, names, next: 0 });
  };
  await enter(rel);
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.names.length) {
      stack.pop();
      continue;
    }
    const name = top.names[top.next++]!;
    const path = top.rel ? `${top.rel}/${name}` : name;
    let stats: Stats;
    try {
      stats = lstatSync(fsPath(join(root, path))); // sync: one syscall, cheaper than a thread-pool round trip per file
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue; // deleted while we walked: absent
      // A name that takes the path from the root to PATH_MAX or more: no system call can reach it.
      if (code === 'ENAMETOOLONG') {
        options.onSkip({ path: displayName(path.slice(0, 200)), reason: TOO_LONG_TO_READ });
        continue;
      }
      // A directory that can be listed but not searched (mode 644): its names are known, nothing else is.
      if (code === 'EACCES' || code === 'EPERM') {
        options.onSkip({ path: displayName(path), reason: `cannot be read (${code}): its directory is not searchable; left out` });
        continue;
      }
      throw err;
    }
    const entry = await classify(root, path.split('/'), stats, options);
    if (!entry) continue;
    yield entry;
    if (entry.type === 'dir') await enter(path);
  }
}

/** The names in directory `rel`, in byte order; undefined (reported when it is not a race) when it cannot be listed. */
async function listDir(root: string, rel: string, options: { onSkip: (skip: WalkSkip) => void }): Promise<string[] | undefined> {
  // Names as bytes: one that is not UTF-8 is kept (escaped, see names.ts), never merged with another.
  let raw: Buffer[];
  try {
    // Sync, like the lstat of each entry: a thread-pool round trip per directory waited behind the compressor's.
    raw = readdirSync(fsPath(join(root, rel)), { encoding: 'buffer' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      // The directory's own entry was already yielded (its mode is known from lstat): a restore brings it back,
      // empty, with that mode. The report says exactly that, so create and restore tell the same story.
      const mode = ((await lstat(fsPath(join(root, rel))).catch(() => undefined))?.mode ?? 0) & 0o7777;
      options.onSkip({ path: displayName(rel), reason: `directory cannot be read (${code}): kept as an empty directory with its mode (${mode.toString(8).padStart(3, '0')}), its content left out` });
      return undefined;
    }
    if (code === 'ENOENT') return undefined; // deleted while we walked
    if (code === 'ENAMETOOLONG') {
      options.onSkip({ path: displayName(rel.slice(0, 200)), reason: TOO_LONG_TO_READ });
      return undefined;
    }
    throw err;
  }
  return raw.map(decodeName).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Why a restore (`guardPath` with the default limits) would refuse `path`, as a `skipped` reason; undefined when
 * it accepts it. A path on disk can only break the length and depth limits, but whatever the guard says is used.
 */
export function nameRefusal(path: string): string | undefined {
  try {
    guardPath(path, DEFAULT_RESTORE_LIMITS);
    return undefined;
  } catch (err) {
    if (!(err instanceof UnsafeArchiveError)) throw err;
    const { maxDepth, maxPathBytes } = DEFAULT_RESTORE_LIMITS;
    return /^path (deeper|longer) than/.test(err.reason)
      ? `deeper or longer than a restore accepts (${maxDepth} levels, ${maxPathBytes} bytes)`
      : `a restore refuses this name (${err.reason})`;
  }
}

async function classify(
  root: string,
  segments: string[],
  stats: Stats,
  options: { ignore: (path: string) => boolean; onSkip: (skip: WalkSkip) => void },
): Promise<WalkEntry | undefined> {
  const path = segments.join('/');
  if (options.ignore(path)) return undefined;
  // The restore's own rule (`guardPath`) decides what is kept, so create never keeps a name a restore refuses.
  const refused = nameRefusal(path);
  if (refused) {
    options.onSkip({ path: displayName(path.slice(0, 200)), reason: refused });
    return undefined;
  }
  if (segments[segments.length - 1]!.startsWith('.wh.')) {
    options.onSkip({ path: displayName(path), reason: 'name starts with .wh. (reserved for whiteouts)' });
    return undefined;
  }
  if (stats.isDirectory()) return { path, segments, type: 'dir', stats };
  if (stats.isFile()) return { path, segments, type: 'file', stats };
  if (stats.isSymbolicLink()) {
    // A link is data: kept as it is, wherever it points (a venv's python, an absolute /workspace/… link).
    const linkpath = decodeName(await readlink(fsPath(join(root, path)), { encoding: 'buffer' }));
    return { path, segments, type: 'symlink', stats, linkpath };
  }
  options.onSkip({ path: displayName(path), reason: `${specialKind(stats)} cannot be snapshotted` });
  return undefined;
}
