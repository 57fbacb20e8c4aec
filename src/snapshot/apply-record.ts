/**
 * What `mnemara apply` last wrote into a host directory: the snapshot's rollouts and when the write ended, kept in
 * the home (`<home>/applied/<sha256 of the directory's real path>.json`, `{ dir, snapshot, rolloutIds, at }`, `at`
 * in ms since the epoch). The host-changed check of `applyToHost` compares the directory with the start of the
 * first run it does not hold yet: without the record that was always the lineage's first run, so after one apply
 * the files it wrote made every later apply refuse (trial 25 N7). The record's `rolloutIds` also tell which
 * snapshot up the chain the next run started from (`runBase`), the base of the three-way apply (trial 28 F0).
 */
import { readDirRecord, writeDirRecord } from './dir-record.js';
import type { UndoneStamp } from './apply.js';

/** One directory's last apply. */
export interface ApplyRecord {
  dir: string;
  snapshot: string;
  rolloutIds: string[];
  /** When the write ended, ms since the epoch. */
  at: number;
}

/** The record of `dir`'s last apply, or null (none, or unreadable: the check then falls back to the first run). */
export async function readApplyRecord(home: string, dir: string): Promise<ApplyRecord | null> {
  const r = await readDirRecord(home, 'applied', dir);
  if (!r || typeof r.snapshot !== 'string' || !Array.isArray(r.rolloutIds) || typeof r.at !== 'number') return null;
  return { dir: r.dir, snapshot: r.snapshot, rolloutIds: r.rolloutIds.filter((x): x is string => typeof x === 'string'), at: r.at };
}

/** Saves `dir`'s apply of `snapshot` (its `rolloutIds`) that ended at `at`, atomically. Throws what the file system throws. */
export async function writeApplyRecord(home: string, dir: string, snapshot: string, rolloutIds: string[], at: number): Promise<void> {
  await writeDirRecord(home, 'applied', dir, { snapshot, rolloutIds, at });
}

/**
 * The paths the last undone apply into `dir` touched, as the undo left them (`applyToHost`'s `onUndone`; kept in
 * `<home>/apply-undone/`): the undo puts files, modes and mtimes back but cannot set ctimes back, so without this
 * the retry's host-changed guard took them for the user's changes. Empty when there is none or it is unreadable.
 */
export async function readUndoneApply(home: string, dir: string): Promise<UndoneStamp[]> {
  const r = await readDirRecord(home, 'apply-undone', dir);
  if (!r || !Array.isArray(r.stamps)) return [];
  return r.stamps.filter((s): s is UndoneStamp => typeof s === 'object' && s !== null && typeof s.path === 'string' && typeof s.key === 'string');
}

/** Saves `stamps` as `dir`'s undone apply, atomically. Throws what the file system throws. */
export async function writeUndoneApply(home: string, dir: string, stamps: UndoneStamp[]): Promise<void> {
  await writeDirRecord(home, 'apply-undone', dir, { stamps });
}
