import { readDirRecord, writeDirRecord } from './dir-record.js';

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

/** Records that `dir` now holds `snapshot` (atomically: write aside, rename). Throws on an unwritable home. */
export async function writeRestoreMarker(home: string, dir: string, snapshot: string): Promise<void> {
  await writeDirRecord(home, 'restores', dir, { snapshot, at: new Date().toISOString() });
}

/** The snapshot `dir` was last restored from or snapshotted as, or `null` (no marker, or one that is unreadable). */
export async function readRestoreMarker(home: string, dir: string): Promise<RestoreMarker | null> {
  const m = await readDirRecord(home, 'restores', dir);
  if (!m || typeof m.snapshot !== 'string') return null;
  return { dir: m.dir, snapshot: m.snapshot, at: typeof m.at === 'string' ? m.at : '' };
}
