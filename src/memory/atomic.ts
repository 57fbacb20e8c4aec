import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` so that readers see either the old file or the new one, never half of it:
 * a temp file beside the target (same filesystem), fsynced, then renamed over it. Creates parent directories.
 * Errors from the filesystem are rethrown after the temp file is removed. `mode`: the new file's permission bits
 * (default 0644), set at creation, so a file kept 0600 is never readable by others, not even for a moment.
 */
export async function writeFileAtomic(path: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'wx', mode);
    try {
      await (typeof data === 'string' ? fh.writeFile(data, 'utf8') : fh.writeFile(data));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
