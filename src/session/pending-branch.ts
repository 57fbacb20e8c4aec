/**
 * What a session does when its workspace snapshot exists but the head cannot be moved to it: the rollout is
 * kept, pending, on a branch of the lineage (docs/session.md "Branches: code that could not land").
 */
import { MnemaraError } from '../config/errors.js';
import { ioFailureCode, ioFailureError, type SavedWork } from '../config/io-errors.js';
import { logger } from '../config/logger.js';
import type { SnapshotStore } from '../snapshot/index.js';
import { sessionBranch } from './publish.js';

const log = logger('session');

/**
 * The head could not be moved to the workspace snapshot (the bound passed, the disk filled, the store failed):
 * the rollout is recorded as pending on the branch `LINEAGE@<rollout-id>` naming that snapshot, and the error
 * says where it is. The next session on the lineage (or `mnemara recover`) adopts it. Returns the error to throw
 * (`HEAD_WAIT_EXPIRED`, `PUBLISH_FAILED`, or the I/O failure naming what was saved); never throws itself.
 */
export async function pendingOnBranch(
  err: unknown,
  at: { store: SnapshotStore; lineage: string; rolloutId: string; workspaceSnapshot: string; saved: SavedWork },
): Promise<MnemaraError> {
  const branch = sessionBranch(at.lineage, at.rolloutId);
  // On a full disk even the tiny ref may not fit: the snapshot is then named by id (and adopted later by id).
  const named = await at.store.moveBranch(branch, null, at.workspaceSnapshot).then(
    () => true,
    (e: unknown) => {
      log.info({ err: e, branch }, 'could not record the pending rollout on its branch');
      return false;
    },
  );
  if (named) at.saved.branch = branch;
  if (ioFailureCode(err)) return ioFailureError(err, `moving the head of ${at.lineage}`, at.saved);
  const where = named ? `branch ${branch} (snapshot ${at.workspaceSnapshot})` : `snapshot ${at.workspaceSnapshot}`;
  return new MnemaraError(
    (err as MnemaraError).code === 'HEAD_WAIT_EXPIRED' ? 'HEAD_WAIT_EXPIRED' : 'PUBLISH_FAILED',
    `could not move the head of ${at.lineage}: ${(err as Error).message}. The rollout ${at.rolloutId} is saved, pending, on ${where}; its transcript is at ${at.saved.transcriptPath}.`,
    {
      hint: `\`mnemara recover --lineage ${at.lineage}\` (or the next run) brings it into the lineage's memory; \`mnemara snapshot restore ${at.workspaceSnapshot} DIR\` gets its code.`,
      cause: err,
    },
  );
}
