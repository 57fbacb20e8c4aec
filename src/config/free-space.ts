import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Free bytes (for an unprivileged user: `bavail`) on the filesystem of `path`, or of its nearest existing
 * ancestor (the home or a store may not exist yet); `where` is the directory measured.
 * @throws the `statfs` error of the filesystem root when not even `/` can be read.
 */
export async function freeBytes(path: string): Promise<{ free: number; where: string }> {
  for (let where = path; ; where = dirname(where)) {
    try {
      const s = await statfs(where);
      return { free: s.bavail * s.bsize, where };
    } catch (err) {
      if (dirname(where) === where) throw err;
    }
  }
}
