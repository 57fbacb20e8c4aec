import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';
import { SourceChangedError } from '../snapshot/errors.js';
import type { CreateSnapshotOptions, Manifest, SnapshotStore } from '../snapshot/types.js';

const log = logger('session');

/** Whole archives read before a workspace that keeps changing fails the snapshot. */
const ATTEMPTS = 3;

/**
 * Step 6: snapshots the sandbox's workspace from its archive stream. A file that changes while it is read
 * (something the agent started still writing) makes the stream fail with `SourceChangedError`; the whole
 * archive is then read again, up to 3 times, and after that the error (naming the file) is thrown.
 */
export async function snapshotSandbox(sandbox: Sandbox, store: SnapshotStore, options: CreateSnapshotOptions): Promise<Manifest> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.create({ tar: await sandbox.getArchive(sandbox.workspaceDir) }, options);
    } catch (err) {
      if (!(err instanceof SourceChangedError) || attempt >= ATTEMPTS) throw err;
      log.warn({ path: err.path, attempt }, 'a file changed while the workspace was read; reading it again');
    }
  }
}
