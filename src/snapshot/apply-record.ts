/**
 * What `mnemara apply` last wrote into a host directory: the snapshot's rollouts and when the write ended, kept in
 * the home (`<home>/applied/<sha256 of the directory's real path>.json`, `{ dir, snapshot, rolloutIds, at }`, `at`
 * in ms since the epoch). The host-changed check of `applyToHost` compares the directory with the start of the
 * first run it does not hold yet: without the record that was always the lineage's first run, so after one apply
 * the files it wrote made every later apply refuse (trial 25 N7).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** One directory's last apply. */
export interface ApplyRecord {
  dir: string;
  snapshot: string;
  rolloutIds: string[];
  /** When the write ended, ms since the epoch. */
  at: number;
}

async function recordFile(home: string, dir: string): Promise<{ file: string; real: string }> {
  const real = await realpath(dir).catch(() => resolve(dir));
  return { file: join(home, 'applied', `${createHash('sha256').update(real).digest('hex').slice(0, 32)}.json`), real };
}

/** The record of `dir`'s last apply, or null (none, or unreadable: the check then falls back to the first run). */
export async function readApplyRecord(home: string, dir: string): Promise<ApplyRecord | null> {
  const { file, real } = await recordFile(home, dir);
  try {
    const r = JSON.parse(await readFile(file, 'utf8')) as Partial<ApplyRecord>;
    if (r.dir !== real || typeof r.snapshot !== 'string' || !Array.isArray(r.rolloutIds) || typeof r.at !== 'number') return null;
    return { dir: r.dir, snapshot: r.snapshot, rolloutIds: r.rolloutIds.filter((x): x is string => typeof x === 'string'), at: r.at };
  } catch {
    return null;
  }
}

/** Saves `dir`'s apply of `snapshot` (its `rolloutIds`) that ended at `at`, atomically. Throws what the file system throws. */
export async function writeApplyRecord(home: string, dir: string, snapshot: string, rolloutIds: string[], at: number): Promise<void> {
  const { file, real } = await recordFile(home, dir);
  await mkdir(join(home, 'applied'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ dir: real, snapshot, rolloutIds, at })}\n`);
  await rename(tmp, file);
}
