import { closeSync, constants, fchmodSync, futimesSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ReadEntry } from 'tar';
import type { FileHandle } from 'node:fs/promises';

/** O_EXCL|O_NOFOLLOW: never reuse or follow anything already at the path. */
const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Files up to this size are written with synchronous calls: one syscall each, no thread-pool round trips. */
const SYNC_WRITE_BYTES = 4 * 1024 * 1024;

/** Chunks of at least this many zero bytes are left as holes. */
const HOLE_MIN_BYTES = 64 * 1024;
const ZEROS = Buffer.alloc(1024 * 1024);

function isZeros(c: Buffer): boolean {
  for (let off = 0; off < c.length; off += ZEROS.length) {
    const part = c.subarray(off, Math.min(c.length, off + ZEROS.length));
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

async function writeAllAt(fh: FileHandle, data: Buffer, position: number): Promise<void> {
  for (let off = 0; off < data.length; ) {
    const { bytesWritten } = await fh.write(data, off, data.length - off, position + off);
    off += bytesWritten;
  }
}

/**
 * Creates `target`, which must not exist, with the entry's content, then sets `mode` (permission bits)
 * and `mtime` (ms since the epoch). Consumes the entry.
 */
export async function writeFileEntry(entry: ReadEntry, target: string, mode: number, mtime: number): Promise<void> {
  if (entry.size <= SYNC_WRITE_BYTES) {
    const chunks: Buffer[] = [];
    for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const fd = openSync(target, WRITE_NEW, 0o600);
    try {
      for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
      fchmodSync(fd, mode);
      futimesSync(fd, mtime / 1000, mtime / 1000);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const fh = await open(target, WRITE_NEW, 0o600);
  try {
    // Runs of zeros (a sparse disk image, a preallocated file) become holes instead of written blocks; the
    // final truncate sets the size, so the content read back is the same bytes.
    let pos = 0;
    for await (const c of entry as AsyncIterable<Buffer>) {
      if (!(c.length >= HOLE_MIN_BYTES && isZeros(c))) await writeAllAt(fh, c, pos);
      pos += c.length;
    }
    await fh.truncate(pos);
    await fh.chmod(mode);
    await fh.utimes(mtime / 1000, mtime / 1000);
  } finally {
    await fh.close();
  }
}
