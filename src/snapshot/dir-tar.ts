import { closeSync, constants, fstatSync, openSync, type BigIntStats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { SourceChangedError } from './errors.js';
import { displayName, fsPath } from './names.js';
import { readWhole, sameVersion } from './pack.js';
import { TarWriter } from './tar-write.js';
import { walkTree, type WalkSkip } from './walk.js';
import { HardLinkGroups } from './hardlinks.js';

/** Files up to this size are read whole and checked before they are written to the stream. */
const WHOLE_FILE_BYTES = 8 * 1024 * 1024;
const ATTEMPTS = 3;

/** Options of `directoryTar`. */
export interface DirectoryTarOptions {
  /** Paths (`/`-separated, relative) left out silently, with everything under them. */
  ignore: (path: string) => boolean;
  /** Told of each path left out on purpose (FIFO, socket, device, unreadable, too deep …), with why. */
  onSkip: (skip: WalkSkip) => void;
  /**
   * `'header'`: FIFOs and device files go into the stream as header-only entries (as Docker's archive API
   * writes them), for a reader that lists them as skipped; `'skip'` (default): they are left out (an extractor
   * run as a user could not create a device file).
   */
  specials?: 'skip' | 'header';
}

/**
 * `dir` as an uncompressed tar stream shaped like Docker's archive of `dir/.` (`./` first, then `./name`
 * entries, parents before children). Owned instead of node-tar's `create` because that one opens a FIFO and
 * waits on it for ever, drops names that are not UTF-8, and crashes with an unhandled error when a file grows
 * while it is read. Here: the walk never opens anything but regular files and directories (`walkTree`); names
 * are kept byte for byte; a file up to 8 MiB is read whole and re-read when it changed meanwhile (3 attempts),
 * a larger one is streamed and checked after. A file that keeps changing destroys the stream with a
 * `SourceChangedError` naming it (nothing half-right reaches a snapshot); so does any read error.
 */
export function directoryTar(dir: string, options: DirectoryTarOptions): Readable {
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  const writer = new TarWriter(out);
  const pending: string[] = [];
  const onSkip = options.onSkip;
  const links = new HardLinkGroups();
  const write = async (): Promise<void> => {
    const root = await lstat(dir);
    await writer.header({ path: './', type: 'Directory', mode: root.mode & 0o1777, mtime: root.mtimeMs });
    // The walk reports FIFOs and devices synchronously before its next entry: their headers follow it.
    const walkSkip = (skip: WalkSkip): void => {
      if (options.specials === 'header' && /^(FIFO|device file) cannot/.test(skip.reason)) pending.push(skip.path);
      else onSkip(skip);
    };
    const flushSpecials = async (): Promise<void> => {
      for (const rel of pending.splice(0)) {
        const st = await lstat(fsPath(join(dir, rel))).catch(() => null);
        if (!st) continue;
        await writer.special(`./${rel}`, st.isFIFO() ? '6' : st.isCharacterDevice() ? '3' : '4', st.mode & 0o777, st.mtimeMs);
      }
    };
    for await (const e of walkTree(dir, [], { ignore: options.ignore, onSkip: walkSkip })) {
      await flushSpecials();
      const path = `./${e.path}`;
      const mtime = e.stats.mtimeMs;
      if (e.type === 'dir') {
        await writer.header({ path, type: 'Directory', mode: e.stats.mode & 0o1777, mtime });
      } else if (e.type === 'symlink') {
        await writer.header({ path, type: 'SymbolicLink', mode: 0o777, mtime, linkpath: e.linkpath! });
      } else {
        const linkTo = links.targetOf(e.stats);
        if (linkTo !== undefined) {
          await writer.header({ path, type: 'Link', mode: e.stats.mode & 0o1777, mtime, linkpath: `./${linkTo}` });
        } else if (await writeFile(writer, join(dir, e.path), path, e.path, onSkip)) {
          links.packed(e.path, e.stats);
        }
      }
    }
    await flushSpecials();
    await writer.end();
  };
  write().then(
    () => out.end(),
    (err: unknown) => out.destroy(err as Error),
  );
  return out;
}

/** Writes one regular file's entry; false when it is not in the stream (deleted, replaced, unreadable). */
async function writeFile(writer: TarWriter, abs: string, path: string, rel: string, onSkip: (s: WalkSkip) => void): Promise<boolean> {
  const p = fsPath(abs);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let fd: number;
    try {
      fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return false; // deleted since the walk: not in the stream
      if (code === 'EACCES' || code === 'EPERM') {
        onSkip({ path: displayName(rel), reason: `file cannot be read (${code}): left out` });
        return false;
      }
      if (code === 'ELOOP') return false; // replaced by a link since the walk
      throw err;
    }
    let before: BigIntStats;
    let buf: Buffer | null = null;
    try {
      before = fstatSync(fd, { bigint: true });
      if (!before.isFile()) return false; // replaced by something else since the walk
      if (before.size > BigInt(WHOLE_FILE_BYTES)) break;
      buf = readWhole(fd, Number(before.size));
      if (buf === null || !sameVersion(before, fstatSync(fd, { bigint: true }))) continue;
    } finally {
      closeSync(fd);
    }
    await writer.file({ path, mode: Number(before.mode) & 0o1777, mtime: Number(before.mtimeNs / 1_000_000n) }, buf);
    return true;
  }
  const fh = await open(p, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const before = await fh.stat({ bigint: true });
    const size = Number(before.size);
    if (size <= WHOLE_FILE_BYTES) throw new SourceChangedError(displayName(rel));
    await writer.header({ path, type: 'File', mode: Number(before.mode) & 0o1777, mtime: Number(before.mtimeNs / 1_000_000n), size });
    let read = 0;
    for await (const c of fh.createReadStream({ autoClose: false, start: 0, end: size - 1, highWaterMark: 1024 * 1024 })) {
      read += (c as Buffer).length;
      await writer.write(c as Buffer);
    }
    if (read !== size || !sameVersion(before, await fh.stat({ bigint: true }))) throw new SourceChangedError(displayName(rel));
    await writer.pad(size);
    return true;
  } finally {
    await fh.close();
  }
}
