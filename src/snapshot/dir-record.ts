/**
 * A small JSON record about one host directory, kept in the home rather than in the directory so that nothing of
 * it is ever packed: `<home>/<kind>/<first 32 hex of sha256 of the directory's real path>.json`. The record holds
 * the real path (`dir`) so that a hash collision or a moved directory reads as "no record". Used for the restore
 * marker (`restores/`) and the apply record (`applied/`).
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Where `dir`'s record of `kind` lives, and the real path it is keyed by (the resolved path when `dir` is missing). */
export function dirRecordFile(home: string, kind: string, dir: string): { file: string; real: string } {
  let real = resolve(dir);
  try {
    real = realpathSync(real);
  } catch {
    // A directory that does not exist yet has no record to find; its resolved path names it.
  }
  return { file: join(home, kind, `${createHash('sha256').update(real).digest('hex').slice(0, 32)}.json`), real };
}

/**
 * Saves `fields` plus `dir` (the real path) as `dir`'s record of `kind`, atomically (write aside, rename).
 * Throws what the file system throws (an unwritable or full home).
 */
export async function writeDirRecord(home: string, kind: string, dir: string, fields: Record<string, unknown>): Promise<void> {
  const { file, real } = dirRecordFile(home, kind, dir);
  await mkdir(join(home, kind), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ dir: real, ...fields })}\n`);
  await rename(tmp, file);
}

/**
 * `dir`'s record of `kind` as parsed JSON with `dir` equal to the real path, or null: no record, unreadable,
 * not an object, or written for another path. The caller checks the other fields' types.
 */
export async function readDirRecord(home: string, kind: string, dir: string): Promise<(Record<string, unknown> & { dir: string }) | null> {
  const { file, real } = dirRecordFile(home, kind, dir);
  try {
    const r: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (typeof r !== 'object' || r === null || (r as { dir?: unknown }).dir !== real) return null;
    return r as Record<string, unknown> & { dir: string };
  } catch {
    return null;
  }
}
