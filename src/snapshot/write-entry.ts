import { closeSync, constants, fchmodSync, futimesSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ReadEntry } from 'tar';
import { writeAll } from './fs-atomic.js';

/** O_EXCL|O_NOFOLLOW: never reuse or follow anything already at the path. */
const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Files up to this size are written with synchronous calls: one syscall each, no thread-pool round trips. */
const SYNC_WRITE_BYTES = 4 * 1024 * 1024;

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
    for await (const c of entry as AsyncIterable<Buffer>) await writeAll(fh, c);
    await fh.chmod(mode);
    await fh.utimes(mtime / 1000, mtime / 1000);
  } finally {
    await fh.close();
  }
}
