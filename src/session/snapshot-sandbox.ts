import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';
import { compileIgnore } from '../snapshot/ignore.js';
import { SourceChangedError } from '../snapshot/errors.js';
import type { CreateSnapshotOptions, Manifest, SnapshotStore } from '../snapshot/types.js';
import { snapshotChanges, type ChangeTimings } from './snapshot-changes.js';
import { diffListings, type ChangeLimits } from './workspace-changes.js';
import { listWorkspace, type WorkspaceListing } from './workspace-listing.js';

const log = logger('session');

/** Whole archives read before a workspace that keeps changing fails the snapshot. */
const ATTEMPTS = 3;

/** How the workspace snapshot was taken: from the changes alone, or from the whole stream (and why). */
export type WorkspaceSnapshotMode =
  | { kind: 'changes'; paths: number; deleted: number; bytes: number }
  | { kind: 'full'; reason: string };

/** Where step 6 spent its time, ms (`SessionResult.timings.parts`). */
export interface SnapshotTimings {
  listingMs?: number;
  transferOutMs?: number;
  packMs?: number;
  /** The whole stream: transfer out, extraction to a temporary directory, hashing, compression, index. */
  fullStreamMs?: number;
}

/** The baseline of a change snapshot: the listing taken right after the restore of `parent`. */
export interface ChangeBaseline {
  listing: WorkspaceListing;
  /** The snapshot restored into the sandbox (exactly; the delta is taken against its tree). */
  parent: string;
  /** `snapshot.ignore`: changes under ignored paths are not brought out. */
  ignore: string[];
  limits?: ChangeLimits;
}

/**
 * Step 6: snapshots the sandbox's workspace. With a `baseline` (the session restored a snapshot and listed the
 * workspace right after), the workspace is listed again and only what changed is brought out, straight into a
 * delta layer (`snapshotChanges`); when the listings cannot be trusted or the changes cannot be brought out,
 * the reason is logged and reported and the whole archive stream is read instead, as without a baseline.
 * A file that changes while the whole stream is read makes it fail with `SourceChangedError`; the archive is
 * then read again, up to 3 times, and after that the error (naming the file) is thrown.
 */
export async function snapshotSandbox(
  sandbox: Sandbox,
  store: SnapshotStore,
  options: CreateSnapshotOptions,
  baseline?: ChangeBaseline,
  report: { mode?: WorkspaceSnapshotMode; timings?: SnapshotTimings } = {},
): Promise<Manifest> {
  const timings: SnapshotTimings = (report.timings ??= {});
  let reason = 'no baseline listing (not restored from a snapshot)';
  if (baseline && options.parent === baseline.parent) {
    const listed = Date.now();
    const after = await listWorkspace(sandbox).catch((err: Error) => err);
    timings.listingMs = Date.now() - listed;
    const verdict = after instanceof Error ? { ok: false as const, reason: `listing failed: ${after.message}` } : diffListings(baseline.listing, after, compileIgnore(baseline.ignore), baseline.limits);
    if (verdict.ok) {
      const c = verdict.changes;
      try {
        const t: ChangeTimings = { transferOutMs: 0, packMs: 0 };
        const manifest = await snapshotChanges(sandbox, store, c, { ...options, parent: baseline.parent }, t);
        Object.assign(timings, t);
        report.mode = { kind: 'changes', paths: c.send.length, deleted: c.deleted, bytes: c.bytes };
        return manifest;
      } catch (err) {
        reason = `the changes could not be taken: ${(err as Error).message}`;
      }
    } else {
      reason = verdict.reason;
    }
  } else if (baseline) {
    reason = `the delta parent ${options.parent ?? '(none)'} is not the restored ${baseline.parent}`;
  }
  if (baseline) {
    log.warn({ reason }, 'reading the whole workspace stream instead of its changes');
    options.onProgress?.({ step: 'snapshot', phase: 'progress', message: `whole workspace read: ${reason}` });
  }
  report.mode = { kind: 'full', reason };
  const started = Date.now();
  try {
    return await fullStream(sandbox, store, options);
  } finally {
    timings.fullStreamMs = Date.now() - started;
  }
}

async function fullStream(sandbox: Sandbox, store: SnapshotStore, options: CreateSnapshotOptions): Promise<Manifest> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.create({ tar: await sandbox.getArchive(sandbox.workspaceDir) }, options);
    } catch (err) {
      if (!(err instanceof SourceChangedError) || attempt >= ATTEMPTS) throw err;
      log.warn({ path: err.path, attempt }, 'a file changed while the workspace was read; reading it again');
    }
  }
}
