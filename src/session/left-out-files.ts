/**
 * What `<home>/left-out/` holds and its retention. A run's files that hold a token, and credential files, are set
 * aside there instead of packed (`left-out.ts`): secrets, kept for the user to copy out. They must not pile up for
 * ever: `mnemara doctor` lists them (count, bytes, oldest), `mnemara gc` removes each run's folder once it is older
 * than `snapshot.leftOutDays` (or all at once), and permissions are forced to 0700 (directories) and 0600 (files).
 */
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { logger } from '../config/logger.js';
import { minOf } from '../config/arrays.js';

const log = logger('session');

/** `<home>/left-out`: one folder per rollout (`<rollout-id>/<workspace path>`). */
export function leftOutRoot(home: string): string {
  return join(home, 'left-out');
}

/** One rollout's folder under `<home>/left-out/`. */
export interface LeftOutRun {
  rolloutId: string;
  dir: string;
  /** Regular files (and links) in it. */
  files: number;
  /** Their sizes, bytes. */
  bytes: number;
  /** Newest modification time of the folder or anything in it, ms since the epoch: the run's age is measured from it. */
  newestMs: number;
  /** Oldest modification time of a file in it, ms since the epoch (`newestMs` when it holds no file). */
  oldestMs: number;
}

/** Walks one folder: files, bytes, oldest and newest mtime (ms). Unreadable parts are skipped. */
async function measure(dir: string): Promise<{ files: number; bytes: number; oldestMs: number; newestMs: number }> {
  const top = await lstat(dir);
  const out = { files: 0, bytes: 0, oldestMs: Infinity, newestMs: top.mtimeMs };
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = join(d, e.name);
      const st = await lstat(p).catch(() => null);
      if (!st) continue;
      out.newestMs = Math.max(out.newestMs, st.mtimeMs);
      if (st.isDirectory()) await walk(p);
      else {
        out.files += 1;
        out.bytes += st.size;
        out.oldestMs = Math.min(out.oldestMs, st.mtimeMs);
      }
    }
  };
  await walk(dir);
  if (out.oldestMs === Infinity) out.oldestMs = out.newestMs;
  return out;
}

/** Every rollout folder under `<home>/left-out/`, oldest first. `[]` when there is none. Never throws. */
export async function listLeftOut(home: string): Promise<LeftOutRun[]> {
  const root = leftOutRoot(home);
  const runs: LeftOutRun[] = [];
  for (const e of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    if (!e.isDirectory()) continue;
    const dir = join(root, e.name);
    const m = await measure(dir).catch(() => null);
    if (m) runs.push({ rolloutId: e.name, dir, ...m });
  }
  return runs.sort((a, b) => a.oldestMs - b.oldestMs);
}

/** The totals `mnemara doctor` shows: files, bytes, the oldest file's time (ISO 8601, `null`: none), the folder. */
export interface LeftOutTotals {
  dir: string;
  runs: number;
  files: number;
  bytes: number;
  oldest: string | null;
}

/** Totals over `listLeftOut(home)`. Never throws. */
export async function leftOutTotals(home: string): Promise<LeftOutTotals> {
  const runs = await listLeftOut(home);
  const oldest = runs.length ? minOf(runs.map((r) => r.oldestMs)) : null;
  return {
    dir: leftOutRoot(home),
    runs: runs.length,
    files: runs.reduce((n, r) => n + r.files, 0),
    bytes: runs.reduce((n, r) => n + r.bytes, 0),
    oldest: oldest === null ? null : new Date(oldest).toISOString(),
  };
}

/** What `removeLeftOut` removed (or would, with `dryRun`) and kept. */
export interface LeftOutRemoval {
  removed: LeftOutRun[];
  kept: LeftOutRun[];
}

/**
 * Removes the rollout folders under `<home>/left-out/` whose newest file is older than `olderThanDays` days (a
 * day = 86,400,000 ms), or every one with `all`; `dryRun` only lists. What stays gets its permissions forced
 * back to 0700/0600 (`lockDown`). Never throws: a folder that cannot be removed is logged and listed as kept.
 */
export async function removeLeftOut(home: string, options: { olderThanDays: number; all?: boolean; dryRun?: boolean; now?: number }): Promise<LeftOutRemoval> {
  const cutoff = (options.now ?? Date.now()) - options.olderThanDays * 86_400_000;
  const out: LeftOutRemoval = { removed: [], kept: [] };
  for (const run of await listLeftOut(home)) {
    if (!options.all && run.newestMs > cutoff) {
      out.kept.push(run);
      continue;
    }
    if (options.dryRun) {
      out.removed.push(run);
      continue;
    }
    const ok = await rm(run.dir, { recursive: true, force: true }).then(() => true, (err: unknown) => {
      log.warn({ dir: run.dir, err: (err as Error).message }, 'could not remove a left-out folder');
      return false;
    });
    (ok ? out.removed : out.kept).push(run);
  }
  if (!options.dryRun) await lockDown(leftOutRoot(home));
  if (out.removed.length && !options.dryRun) log.info({ removed: out.removed.map((r) => r.rolloutId) }, 'removed left-out files past their retention');
  return out;
}

/**
 * Forces `dir` and everything under it to 0700 (directories) and 0600 (files): what a run set aside is a secret,
 * whatever the umask or an earlier version made of it. Symbolic links are not followed. Never throws.
 */
export async function lockDown(dir: string): Promise<void> {
  const st = await lstat(dir).catch(() => null);
  if (!st || st.isSymbolicLink()) return;
  await chmod(dir, st.isDirectory() ? 0o700 : 0o600).catch(() => undefined);
  if (!st.isDirectory()) return;
  for (const name of await readdir(dir).catch(() => [] as string[])) await lockDown(join(dir, name));
}
