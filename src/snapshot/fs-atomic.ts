import { open, rename, mkdir, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/** A unique temporary name beside `path` (same directory, so a rename onto `path` is atomic). */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
}

/** fsyncs a directory so a rename or create inside it survives a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes `data` to `path` crash-safely: temp file in the same directory, fsync, rename, fsync the directory.
 * After a crash the file is either the old content or the new, never a mix.
 */
export async function writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempNameFor(path);
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fsyncDir(dirname(path));
}

/** Writes all of `chunk` at the handle's position (looping over short writes). */
export async function writeAll(fh: import('node:fs/promises').FileHandle, chunk: Buffer): Promise<void> {
  let off = 0;
  while (off < chunk.length) {
    const { bytesWritten } = await fh.write(chunk, off, chunk.length - off);
    off += bytesWritten;
  }
}
