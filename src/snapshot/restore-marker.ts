import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Which snapshot a host directory was last restored from (or last snapshotted as), so that a later
 * `snapshot create --kind memory` of it knows the merge base of its hand edits (issue 10: two people restored the
 * same head, each added a bullet, and the second snapshot silently dropped the first one's). Kept outside the
 * directory, at `<home>/restores/<sha256 of the directory's real path, 32 hex>.json` as
 * `{ "dir": string, "snapshot": string, "at": ISO 8601 }`, so that nothing of it is ever packed.
 */
export interface RestoreMarker {
  dir: string;
  snapshot: string;
  at: string;
}

function markerPath(home: string, dir: string): { file: string; real: string } {
  let real = resolve(dir);
  try {
    real = realpathSync(real);
  } catch {
    // A directory that does not exist yet has no marker to find; its resolved path names it.
  }
  return { file: join(home, 'restores', `${createHash('sha256').update(real).digest('hex').slice(0, 32)}.json`), real };
}

/** Records that `dir` now holds `snapshot` (atomically: write aside, rename). Throws on an unwritable home. */
export async function writeRestoreMarker(home: string, dir: string, snapshot: string): Promise<void> {
  const { file, real } = markerPath(home, dir);
  await mkdir(join(home, 'restores'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ dir: real, snapshot, at: new Date().toISOString() } satisfies RestoreMarker)}\n`);
  await rename(tmp, file);
}

/** The snapshot `dir` was last restored from or snapshotted as, or `null` (no marker, or one that is unreadable). */
export async function readRestoreMarker(home: string, dir: string): Promise<RestoreMarker | null> {
  const { file, real } = markerPath(home, dir);
  try {
    const m = JSON.parse(await readFile(file, 'utf8')) as Partial<RestoreMarker>;
    if (typeof m.snapshot !== 'string' || m.dir !== real) return null;
    return { dir: real, snapshot: m.snapshot, at: typeof m.at === 'string' ? m.at : '' };
  } catch {
    return null;
  }
}
