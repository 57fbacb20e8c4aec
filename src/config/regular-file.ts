import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reads a file of a tree mnemara does not own (a host checkout, a `-w DIR`) only when it is a regular file of at
 * most `maxBytes` bytes, without following a symbolic link at its own name (O_NOFOLLOW) or blocking on a FIFO
 * (O_NONBLOCK). `readFile` on `memories/MEMORY.md -> /dev/zero` read until the host ran out of memory (trial 25);
 * a link to any other host file read that file. Returns the bytes, or null when the path is missing, a link, a
 * FIFO, a device, a directory, larger than `maxBytes`, or unreadable. Never throws.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer | null> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > maxBytes) return null;
    const data = await fh.readFile();
    // Grown while read (a log being written): the same bound holds.
    return data.length > maxBytes ? null : data;
  } catch {
    return null;
  } finally {
    await fh.close().catch(() => undefined);
  }
}
