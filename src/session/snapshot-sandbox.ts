import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';
import { SourceChangedError } from '../snapshot/errors.js';
import type { CreateSnapshotOptions, Manifest, SnapshotStore } from '../snapshot/types.js';

const log = logger('session');

/** Whole archives read before a workspace that keeps changing fails the snapshot. */
const ATTEMPTS = 3;
/** Bound on the socket listing (a `find` over the workspace); past it the snapshot goes on without the list. */
const LIST_TIMEOUT_MS = 60_000;

/**
 * Step 6: snapshots the sandbox's workspace from its archive stream. A file that changes while it is read
 * (something the agent started still writing) makes the stream fail with `SourceChangedError`; the whole
 * archive is then read again, up to 3 times, and after that the error (naming the file) is thrown.
 * Sockets are listed first (`listSockets`): the archive stream has no entry for them, and they go into the
 * manifest's `skipped` like the FIFOs and devices the stream does show.
 */
export async function snapshotSandbox(sandbox: Sandbox, store: SnapshotStore, options: CreateSnapshotOptions): Promise<Manifest> {
  const sockets = await listSockets(sandbox);
  const skipped = [...(options.skipped ?? []), ...sockets.map((path) => ({ path, reason: 'socket cannot be snapshotted' }))];
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
 * The workspace's sockets, as paths relative to it (sorted). Docker's archive API leaves a socket out of the
 * tar stream without a trace, so they are found by a listing inside the sandbox (`find -type s`, which only
 * stats: a socket is never connected to). Names are as the sandbox's UTF-8 decoding gives them. A listing
 * that fails is logged and gives `[]`: the snapshot itself does not depend on it.
 */
export async function listSockets(sandbox: Sandbox): Promise<string[]> {
  const r = await sandbox.exec(['find', sandbox.workspaceDir, '-xdev', '-type', 's', '-printf', '%P\\0'], { timeoutMs: LIST_TIMEOUT_MS }).catch((err: unknown) => {
    log.warn({ err: (err as Error).message }, 'could not list the workspace sockets; any are left out of the snapshot unlisted');
    return null;
  });
  if (!r) return [];
  // find exits 1 when some directory could not be read; what it printed is still right.
  if (r.exitCode !== 0 && r.stdout === '') {
    if (r.exitCode !== 1) log.warn({ exitCode: r.exitCode, stderr: r.stderr.slice(0, 300) }, 'could not list the workspace sockets');
    return [];
  }
  return r.stdout.split('\0').filter((p) => p !== '').sort();
}
