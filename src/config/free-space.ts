import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Free bytes (for an unprivileged user: `bavail`) on the filesystem of `path`, or of its nearest existing
 * ancestor (the home or a store may not exist yet); `where` is the directory measured, `size` the whole
 * filesystem's size (bytes), which tells "free some space" from "this filesystem can never hold it".
 * @throws the `statfs` error of the filesystem root when not even `/` can be read.
 */
export async function freeBytes(path: string): Promise<{ free: number; size: number; where: string }> {
  for (let where = path; ; where = dirname(where)) {
    try {
      const s = await statfs(where);
      return { free: s.bavail * s.bsize, size: s.blocks * s.bsize, where };
    } catch (err) {
      if (dirname(where) === where) throw err;
    }
  }
}
