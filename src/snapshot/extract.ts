import { constants } from 'node:fs';
import { chmod, link, lutimes, mkdir, open, rm, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadEntry } from 'tar';
import type { OnProgress } from '../config/progress.js';
import { UnsafeArchiveError } from './errors.js';
import { writeAll } from './fs-atomic.js';
import { ArchiveBudget, guardMode, guardPath, guardSymlinkTarget, guardType } from './restore-guard.js';
import { readTar } from './tar-read.js';
import { MergedTree } from './tree.js';
import type { RestoreLimits } from './types.js';

const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Extracts an uncompressed tar stream into `dest`, which must be a new, empty directory that nobody else
 * writes to (a staging directory). Every entry passes the restore guard first (paths, types, caps,
 * setuid/setgid stripped); the tree of what was written is kept in memory, so no write ever goes through a
 * symlink, and files are created with O_EXCL|O_NOFOLLOW. Symlink chains are checked on the finished tree;
 * directory modes and times are applied last (deepest first) so a read-only directory does not block its
 * own content. Throws `UnsafeArchiveError` and leaves `dest` half-written: the caller removes it.
 * Returns entry count and content bytes.
 */
export async function extractTar(
  input: Readable,
  dest: string,
  options: { limits: RestoreLimits; onProgress?: OnProgress; step?: string; totalBytes?: number },
): Promise<{ files: number; bytes: number }> {
  const { limits } = options;
  const tree = new MergedTree();
  const budget = new ArchiveBudget(limits);
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      try {
        budget.onInflated(chunk.length);
        cb(null, chunk);
      } catch (err) {
        cb(err as Error);
      }
    },
  });
  let lastReport = 0;
  let ordinal = -1;
  const handle = async (entry: ReadEntry): Promise<void> => {
    ordinal += 1;
    const segments = guardPath(entry.path, limits);
    if (segments.length === 0) return void entry.resume();
    const type = guardType(entry.type, entry.path);
    budget.onHeader(entry.path, type === 'file' ? entry.size : 0);
    const mode = guardMode(entry.mode, type);
    const mtime = entry.mtime?.getTime() ?? Date.now();
    const target = join(dest, ...segments);
    const existing = tree.get(segments);
    let linkpath: string | undefined;
    if (type === 'symlink') {
      linkpath = entry.linkpath ?? '';
      guardSymlinkTarget(segments.slice(0, -1), linkpath, entry.path);
    } else if (type === 'hardlink') {
      const to = guardPath(entry.linkpath ?? '', limits);
      if (tree.get(to)?.entry.type !== 'file') {
        throw new UnsafeArchiveError('hardlink to something that is not a file already extracted', entry.path);
      }
      linkpath = to.join('/');
    }
    // Validates the parent chain (no symlink or file on the way) before anything touches the disk.
    tree.put(segments, { type, mode, size: entry.size, mtime, linkpath, source: { layer: 0, ordinal } }, entry.path);
    if (existing && !(existing.entry.type === 'dir' && type === 'dir')) await rm(target, { recursive: true, force: true });
    if (segments.length > 1) await mkdir(join(dest, ...segments.slice(0, -1)), { recursive: true, mode: 0o755 });
    if (type === 'dir') {
      await mkdir(target, { recursive: true, mode: 0o700 });
      return void entry.resume();
    }
    if (type === 'symlink') {
      entry.resume();
      await symlink(linkpath!, target);
      await lutimes(target, mtime / 1000, mtime / 1000).catch(() => {});
      return;
    }
    if (type === 'hardlink') {
      entry.resume();
      await link(join(dest, ...linkpath!.split('/')), target);
      return;
    }
    const fh = await open(target, WRITE_NEW, 0o600);
    try {
      for await (const c of entry as AsyncIterable<Buffer>) await writeAll(fh, c);
      await fh.chmod(mode);
      await fh.utimes(mtime / 1000, mtime / 1000);
    } finally {
      await fh.close();
    }
    const now = Date.now();
    if (options.onProgress && now - lastReport > 250) {
      lastReport = now;
      options.onProgress({
        step: options.step ?? 'restore',
        phase: 'progress',
        done: budget.bytes,
        total: options.totalBytes,
        unit: 'bytes',
      });
    }
  };
  await Promise.all([pipeline(input, meter), readTar(meter, handle)]).catch((err: unknown) => {
    input.destroy();
    throw err;
  });
  tree.checkSymlinksInside();
  const dirs = [...tree.walk()].filter((w) => w.node.entry.type === 'dir').reverse();
  for (const { segments, node } of dirs) {
    const p = join(dest, ...segments);
    await chmod(p, node.entry.mode);
    if (node.entry.source) await utimes(p, node.entry.mtime / 1000, node.entry.mtime / 1000);
  }
  return { files: budget.files, bytes: budget.bytes };
}
