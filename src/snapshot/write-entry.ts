import { createHash } from 'node:crypto';
import type { TarEntry } from './tar-read.js';
import { closeSync, constants, fchmodSync, fstatSync, futimesSync, openSync, writeSync, writevSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { statKey } from './walk.js';
import { fsPath } from './names.js';

/** O_EXCL|O_NOFOLLOW: never reuse or follow anything already at the path. */
const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Files up to this size are written with synchronous calls: one syscall each, no thread-pool round trips. */
export const SYNC_WRITE_BYTES = 4 * 1024 * 1024;

/**
 * Chunks of at least this many zero bytes (one file-system block) are left as holes. Readers hand over chunks
 * of any size (zlib's 16 KiB, a worker's, a socket's), so a larger threshold made the result depend on the
 * reader: a sparse file came back dense from a stream of small chunks.
 */
const HOLE_MIN_BYTES = 4096;
const ZEROS = Buffer.alloc(1024 * 1024);

function isZeros(c: Buffer): boolean {
  for (let off = 0; off < c.length; off += ZEROS.length) {
    const part = c.subarray(off, Math.min(c.length, off + ZEROS.length));
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

/** Writes `chunks` in order at the file's position: one writev, then plain writes for whatever a short write left. */
function writeAllSync(fd: number, chunks: Buffer[]): void {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  if (total === 0) return;
  const first = chunks.length === 1 ? 0 : writevSync(fd, chunks);
  if (first === total) return;
  const rest = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).subarray(first);
  for (let off = 0; off < rest.length; ) off += writeSync(fd, rest, off, rest.length - off);
}

async function writeAllAt(fh: FileHandle, data: Buffer, position: number): Promise<void> {
  for (let off = 0; off < data.length; ) {
    const { bytesWritten } = await fh.write(data, off, data.length - off, position + off);
    off += bytesWritten;
  }
}

/**
 * An entry's whole content as the chunks it arrives in (no concatenated copy); for entries up to
 * `SYNC_WRITE_BYTES` (callers check the size).
 */
export async function entryChunks(entry: TarEntry): Promise<Buffer[]> {
  if (entry.data) return [entry.data];
  const chunks: Buffer[] = [];
  for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
  return chunks;
}

/**
 * Whether a file created with permission bits `mode` needs an fchmod after open: only when the process's
 * `umask` clears some of its bits (as GNU tar does; one syscall less per file in the common case).
 */
export function needsFchmod(mode: number, umask: number): boolean {
  return (mode & ~umask & 0o777) !== mode;
}

/**
 * What an extraction wrote, by `/`-joined path: the content's sha256 (hex) and the file's `statKey` right after
 * it was written (mode and mtime set). Lets a pack of the extracted tree skip re-reading what it just wrote.
 */
export type ExtractedContent = Map<string, { hash: string; key: string }>;

/**
 * Creates `target`, which must not exist, with the entry's content, then sets `mode` (permission bits)
 * and `mtime` (ms since the epoch). Consumes the entry. With `record`, returns the content's sha256 and the
 * file's stat key after writing. `umask` is the process's (read once per extraction by the caller): a file is
 * created with its mode, and fchmod'ed only when the umask clears some of its bits.
 */
export async function writeFileEntry(
  entry: TarEntry,
  target: string,
  mode: number,
  mtime: number,
  record = false,
  umask = process.umask(),
): Promise<{ hash: string; key: string } | undefined> {
  const h = record ? createHash('sha256') : undefined;
  if (entry.size <= SYNC_WRITE_BYTES) {
    // Gathered, then written in one writev: no concatenated copy (a few MiB per file on the busy main thread).
    const chunks = await entryChunks(entry);
    // Created with its mode (the staging directory is 0700 while it is written).
    const fd = openSync(fsPath(target), WRITE_NEW, mode & 0o777);
    try {
      writeAllSync(fd, chunks);
      if (needsFchmod(mode, umask)) fchmodSync(fd, mode);
      futimesSync(fd, mtime / 1000, mtime / 1000);
      if (!h) return undefined;
      for (const c of chunks) h.update(c);
      return { hash: h.digest('hex'), key: statKey(fstatSync(fd)) };
    } finally {
      closeSync(fd);
    }
  }
  const fh = await open(fsPath(target), WRITE_NEW, 0o600);
  try {
    // Runs of zeros (a sparse disk image, a preallocated file) become holes instead of written blocks; the
    // final truncate sets the size, so the content read back is the same bytes.
    let pos = 0;
    for await (const c of entry as AsyncIterable<Buffer>) {
      h?.update(c);
      if (!(c.length >= HOLE_MIN_BYTES && isZeros(c))) await writeAllAt(fh, c, pos);
      pos += c.length;
    }
    await fh.truncate(pos);
    await fh.chmod(mode);
    await fh.utimes(mtime / 1000, mtime / 1000);
    return h ? { hash: h.digest('hex'), key: statKey(await fh.stat()) } : undefined;
  } finally {
    await fh.close();
  }
}
