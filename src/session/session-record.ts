/**
 * The session record (`<home>/transcripts/<rollout-id>.session.json`): who runs a rollout, where it started and
 * when its agent began, written when a session starts and patched as it goes; what adoption (`orphans.ts`) and a
 * rescue of a killed session's sandbox (`stranded.ts`) read after a crash. Every write is best effort and atomic.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { logger } from '../config/logger.js';
import { writeFileAtomic } from '../snapshot/fs-atomic.js';

const log = logger('session.orphans');
const HOST = hostname();

/** `<home>/transcripts/<rollout-id>.session.json`: who ran a rollout, for adoption after a crash. */
export interface SessionRecord {
  rolloutId: string;
  lineage: string;
  pid: number;
  host: string;
  /** ISO 8601 UTC. */
  startedAt: string;
  /** Set when the session ended (however): its process no longer owns the rollout. */
  endedAt?: string;
  /**
   * `pending` until the sandbox's /workspace holds the whole start (the restore step ended), then `done`. A
   * sandbox whose session died while `pending` has no work in it (the agent never ran). Absent in older records.
   */
  restore?: 'pending' | 'done';
  /**
   * The snapshot the session's workspace started from (the parent its workspace snapshot gets; `null`: a fresh
   * copy), written once the start is resolved. A stranded sandbox rescued after a kill is snapshotted on it, so
   * its notes and MEMORY.md edits merge three-way like a live run's. Absent in older records and before the start
   * is resolved.
   */
  start?: string | null;
  /**
   * The host directory a fresh copy (or a first run with another lineage's memory) was made from: a rescue after a
   * kill tells the user's files there from the files the run wrote, and leaves the latter out when they hold a
   * token, as the session would have (trial 23 F13). Absent for snapshot starts and in older records.
   */
  workspace?: string;
  /** The sandbox's clock when the agent started (seconds): what the run wrote is newer. Absent before the agent ran. */
  runClock?: number;
  /**
   * The store the session wrote to (`SnapshotStore.root`: an absolute directory or an `s3://` URL). A killed
   * session's work is rescued and adopted into that store only: `recover` or the next run on another store would
   * put it where the user never looks (trial 23 F5). Absent in older records (then: whatever store is open).
   */
  store?: string;
}


/** Where the record of `rolloutId` is. */
export const recordPath = (home: string, rolloutId: string): string => join(home, 'transcripts', `${rolloutId}.session.json`);

/**
 * Writes the session record of a starting session (best effort: a failure only costs adoption after a crash).
 * `store`: the root of the store it writes to (`SessionRecord.store`).
 */
export async function writeSessionRecord(home: string, rolloutId: string, lineage: string, store?: string): Promise<void> {
  const record: SessionRecord = { rolloutId, lineage, pid: process.pid, host: HOST, startedAt: new Date().toISOString(), restore: 'pending', ...(store !== undefined ? { store } : {}) };
  try {
    await mkdir(join(home, 'transcripts'), { recursive: true });
    await writeFileAtomic(recordPath(home, rolloutId), `${JSON.stringify(record)}\n`);
  } catch (err) {
    log.warn({ err: (err as Error).message, rolloutId }, 'could not write the session record');
  }
}

/** The session record of `rolloutId`, or `null` when there is none or it cannot be read. */
export async function readSessionRecord(home: string, rolloutId: string): Promise<SessionRecord | null> {
  try {
    const r = JSON.parse(await readFile(recordPath(home, rolloutId), 'utf8')) as SessionRecord;
    return typeof r.lineage === 'string' && r.rolloutId === rolloutId ? r : null;
  } catch {
    return null;
  }
}


/** Rewrites a session record with `patch` (best effort, as `writeSessionRecord`: a failure is logged as `what`). */
async function patchSessionRecord(home: string, rolloutId: string, patch: Partial<SessionRecord>, what: string): Promise<void> {
  try {
    const r = JSON.parse(await readFile(recordPath(home, rolloutId), 'utf8')) as SessionRecord;
    await writeFileAtomic(recordPath(home, rolloutId), `${JSON.stringify({ ...r, ...patch })}\n`);
  } catch (err) {
    log.warn({ err: (err as Error).message, rolloutId }, `could not ${what}`);
  }
}

/** Marks a session record's restore as done (best effort: a failure is logged). */
export async function markSessionRestored(home: string, rolloutId: string): Promise<void> {
  await patchSessionRecord(home, rolloutId, { restore: 'done' }, 'mark the session record restored');
}

/**
 * Records the snapshot a session's workspace starts from (`SessionRecord.start`; `null` for a fresh copy), as
 * soon as the start is resolved (best effort: a failure is logged, and a rescue then has no base).
 */
export async function recordSessionStart(home: string, rolloutId: string, start: string | null, workspace?: string): Promise<void> {
  await patchSessionRecord(home, rolloutId, { start, ...(workspace !== undefined ? { workspace } : {}) }, 'record the start snapshot in the session record');
}

/** Records the sandbox's clock when the agent started (`SessionRecord.runClock`; best effort: a failure is logged). */
export async function recordRunClock(home: string, rolloutId: string, runClock: number | null): Promise<void> {
  if (runClock !== null) await patchSessionRecord(home, rolloutId, { runClock }, 'record the run clock in the session record');
}

/**
 * Ends a session record: removed when the rollout reached the head (`landed`), else marked as ended (the rollout,
 * on no head, is an orphan from here on).
 */
export async function endSessionRecord(home: string, rolloutId: string, landed: boolean): Promise<void> {
  const path = recordPath(home, rolloutId);
  if (landed) {
    await rm(path, { force: true });
    return;
  }
  try {
    const r = JSON.parse(await readFile(path, 'utf8')) as SessionRecord;
    // Atomic: on a full disk the write fails and the old record stays whole (a dead pid marks it orphaned too).
    await writeFileAtomic(path, `${JSON.stringify({ ...r, endedAt: new Date().toISOString() })}\n`);
  } catch {
    // No record (it could not be written): nothing to mark.
  }
}

/**
 * The store a session record names when it is not `openRoot` (the root of the store open now), else `null`: its
 * rollout belongs there, and is neither rescued nor adopted into the open store. Directory roots compare as
 * resolved paths; a record without a store belongs to any.
 */
export function otherStoreOf(record: Pick<SessionRecord, 'store'> | null | undefined, openRoot: string): string | null {
  const own = record?.store;
  if (own === undefined) return null;
  const norm = (x: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(x) ? x.replace(/\/+$/, '') : resolve(x));
  return norm(own) === norm(openRoot) ? null : own;
}
