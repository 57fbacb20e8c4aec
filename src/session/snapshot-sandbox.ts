import { ioFailureCode } from '../config/io-errors.js';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';
import { compileIgnore } from '../snapshot/ignore.js';
import { PATH_MAX, TOO_LONG_TO_READ } from '../snapshot/limits.js';
import { decodeName, displayName } from '../snapshot/names.js';
import { SourceChangedError } from '../snapshot/errors.js';
import type { CreateSnapshotOptions, Manifest, SnapshotStore } from '../snapshot/types.js';
import { snapshotChanges, type ChangeTimings } from './snapshot-changes.js';
import { diffListings, type ChangeLimits } from './workspace-changes.js';
import { listWorkspace, readablePathBytes, type WorkspaceListing } from './workspace-listing.js';

const log = logger('session');

/** Whole archives read before a workspace that keeps changing fails the snapshot. */
const ATTEMPTS = 3;
/** Bound on the socket listing (a `find` over the workspace); past it the snapshot goes on without the list. */
const LIST_TIMEOUT_MS = 60_000;

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
 * Sockets, and paths that reach PATH_MAX in the sandbox, have no entry in either stream: the changes path takes
 * them from its listing, the whole stream lists them first (`listUnstreamed`); both put them into the manifest's
 * `skipped` like the FIFOs and devices.
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
    const verdict = after instanceof Error ? { ok: false as const, reason: `listing failed: ${after.message}` } : diffListings(baseline.listing, after, compileIgnore(baseline.ignore), baseline.limits, readablePathBytes(sandbox.workspaceDir));
    if (verdict.ok) {
      const c = verdict.changes;
      try {
        const t: ChangeTimings = { transferOutMs: 0, packMs: 0 };
        const sockets = c.special.filter((p) => (after as WorkspaceListing).entries.get(p)?.type === 's');
        const skipped = [
          ...(options.skipped ?? []),
          ...sockets.map((p) => ({ path: displayName(p), reason: 'socket cannot be snapshotted' })),
          ...c.tooLong.map((p) => ({ path: displayName(p.slice(0, 200)), reason: TOO_LONG_TO_READ })),
        ];
        const manifest = await snapshotChanges(sandbox, store, c, { ...options, parent: baseline.parent, ...(skipped.length ? { skipped } : {}) }, t);
        Object.assign(timings, t);
        report.mode = { kind: 'changes', paths: c.send.length, deleted: c.deleted, bytes: c.bytes };
        return manifest;
      } catch (err) {
        // A full disk (or another host I/O failure) is not fixed by reading the whole workspace, which needs more
        // space: that read then failed with only "The operation was aborted", hiding the ENOSPC (issue 10 trial).
        if (ioFailureCode(err)) throw err;
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
  const { sockets, tooLong } = await listUnstreamed(sandbox);
  const skipped = [
    ...(options.skipped ?? []),
    ...sockets.map((path) => ({ path: displayName(path), reason: 'socket cannot be snapshotted' })),
    ...tooLong.map((path) => ({ path: displayName(path.slice(0, 200)), reason: TOO_LONG_TO_READ })),
  ];
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.create({ tar: await sandbox.getArchive(sandbox.workspaceDir) }, { ...options, ...(skipped.length ? { skipped } : {}) });
    } catch (err) {
      if (!(err instanceof SourceChangedError) || attempt >= ATTEMPTS) throw err;
      log.warn({ path: err.path, attempt }, 'a file changed while the workspace was read; reading it again');
    }
  }
}

/**
 * What `find` (GNU, C locale) says when the filesystem under a path is damaged, not merely unreadable: an I/O
 * error, a checksum that fails (`Bad message`, EBADMSG), a structure the kernel refuses (`Structure needs
 * cleaning`, EUCLEAN). Twelfth trial: a workspace disk whose sparse image lived on a host disk that filled had
 * directories that failed their checksum; Docker's archive API (and a tar walk) leave such a directory out without
 * a word, and `recover` made the truncated tree the lineage head (384 files gone).
 */
const DAMAGE = /^.*(?:Input\/output error|Bad message|Structure needs cleaning|Stale file handle)$/m;

/** The first line of `stderr` that tells a damaged filesystem, or `null`. */
export function damagedFilesystem(stderr: string): string | null {
  return DAMAGE.exec(stderr)?.[0].trim().slice(0, 300) ?? null;
}

/**
 * The error for a workspace whose filesystem is damaged: no snapshot is taken from it (it would be missing
 * what could not be read), and the sandbox, the only copy of the work, is kept. Its cause carries EIO, so a
 * session reports it as an I/O failure (`ioFailureError`).
 */
export function damagedWorkspaceError(line: string): MnemaraError {
  const cause = Object.assign(new Error(`EIO: ${line}`), { code: 'EIO' });
  return new MnemaraError('IO_FAILED', `the workspace's filesystem is damaged (EIO): ${line}; no snapshot is taken from it, since it would be missing what cannot be read`, {
    hint: 'The sandbox is kept with the work in /workspace. Look at `dmesg` (a workspace disk whose host filesystem filled up is the usual cause), free space on that filesystem, then copy what can be read out of the container (`docker cp <container>:/workspace <dir>`); `mnemara recover` tries again.',
    cause,
  });
}

/**
 * What Docker's archive API leaves out of the workspace's tar stream without a trace, found by a listing inside
 * the sandbox (`find`, which only stats: a socket is never connected to), as paths relative to the workspace
 * (names as bytes, escaped by `names.ts`; sorted): `sockets`, and `tooLong`, every path that with the workspace's
 * own path reaches PATH_MAX (the topmost of each subtree; find walks below PATH_MAX by descriptor, Docker does
 * not). A listing that fails is logged and gives nothing (the snapshot itself does not depend on it), except on a damaged filesystem: then `damagedWorkspaceError` is thrown.
 */
export async function listUnstreamed(sandbox: Sandbox): Promise<{ sockets: string[]; tooLong: string[] }> {
  // `-path` with PATH_MAX `?`s matches a path of PATH_MAX bytes or more (`?` matches `/` here); C locale: any byte.
  const tooLongPattern = `${'?'.repeat(PATH_MAX)}*`;
  const argv = ['env', 'LC_ALL=C', 'find', sandbox.workspaceDir, '-xdev', '(', '-path', tooLongPattern, '-printf', 'L%P\\0', '-prune', ')', '-o', '(', '-type', 's', '-printf', 's%P\\0', ')'];
  const run = sandbox.execBytes
    ? sandbox.execBytes(argv, { timeoutMs: LIST_TIMEOUT_MS, maxOutputBytes: 64 * 1024 * 1024 })
    : sandbox.exec(argv, { timeoutMs: LIST_TIMEOUT_MS }).then((r) => ({ ...r, stdout: Buffer.from(r.stdout) }));
  const r = await run.catch((err: unknown) => {
    log.warn({ err: (err as Error).message }, 'could not list the workspace sockets and too-long paths; any are left out of the snapshot unlisted');
    return null;
  });
  const found = { sockets: [] as string[], tooLong: [] as string[] };
  if (!r) return found;
  const damage = damagedFilesystem(String(r.stderr));
  if (damage) throw damagedWorkspaceError(damage);
  // find exits 1 when some directory could not be read; what it printed is still right.
  if (r.exitCode !== 0 && r.stdout.length === 0) {
    if (r.exitCode !== 1) log.warn({ exitCode: r.exitCode, stderr: String(r.stderr).slice(0, 300) }, 'could not list the workspace sockets and too-long paths');
    return found;
  }
  for (let start = 0; start < r.stdout.length; ) {
    let end = r.stdout.indexOf(0, start);
    if (end < 0) end = r.stdout.length;
    const record = r.stdout.subarray(start, end);
    start = end + 1;
    if (record.length < 2) continue;
    (record[0] === 0x4c /* L */ ? found.tooLong : found.sockets).push(decodeName(record.subarray(1)));
  }
  found.sockets.sort();
  found.tooLong.sort();
  return found;
}
