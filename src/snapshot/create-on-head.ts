import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { HeadConflictError } from './errors.js';
import { HeadWaitExpiredError, retryHeadMove } from './head-retry.js';
import type { CreateSnapshotOptions, Manifest, SnapshotSource, SnapshotStore } from './types.js';

/** What `createOnHead` did: the snapshot now at the head, and how often the head had moved under it. */
export interface CreatedOnHead {
  manifest: Manifest;
  /** Times another writer moved the head first and the snapshot was packed again on top of the new head. */
  conflicts: number;
  /** Directories of `inheritMissing` that `dir` lacks and that were kept as the head had them. */
  inherited: string[];
}

/**
 * Packs a directory into a snapshot and moves its lineage head to it, never giving up while the work is good
 * (`snapshot create --lineage`): when another writer moves the head first, the directory is packed again as a
 * delta on the new head (so the other writer's snapshot stays in the head's history) and the swap is retried
 * with backoff and jitter until `boundMs` passes. Past the bound the last snapshot is kept on the branch
 * `LINEAGE@<snapshot-id>` and `MnemaraError('HEAD_WAIT_EXPIRED')` names it. With `full`, every attempt packs a
 * full layer. `inheritMissing` (the memory layout's directories, for a workspace snapshot of a checkout): those
 * that `dir` lacks are left out of the pack, so the new snapshot keeps the head's (a checkout has no
 * `sessions/`, and a snapshot of it must not drop the lineage's transcripts); not with `full`, which has no
 * parent to keep them from. Throws what `create` throws for bad input.
 */
export async function createOnHead(
  store: SnapshotStore,
  dir: string,
  options: Omit<CreateSnapshotOptions, 'parent'> & { full?: boolean; boundMs: number; inheritMissing?: string[] },
): Promise<CreatedOnHead> {
  const { full, boundMs, inheritMissing, ...create } = options;
  const source: SnapshotSource = { dir };
  const inherited = full ? [] : (inheritMissing ?? []).filter((d) => !existsSync(join(dir, d)));
  // An ignored path is neither packed nor deleted: the delta inherits it from the parent.
  if (inherited.length) create.ignore = [...(create.ignore ?? []), ...inherited.map((d) => `/${d}`)];
  let head = await store.getHead(options.lineage);
  let manifest = await store.create(source, { ...create, parent: full ? null : head });
  let conflicts = 0;
  try {
    await retryHeadMove(
      options.lineage,
      () => store.advanceHead(options.lineage, head, manifest.id),
      async (err) => {
        if (!(err instanceof HeadConflictError)) return;
        conflicts += 1;
        head = err.current;
        if (!full) manifest = await store.create(source, { ...create, parent: head });
      },
      { boundMs },
    );
  } catch (err) {
    if (!(err instanceof HeadWaitExpiredError)) throw err;
    const branch = `${options.lineage}@${manifest.id}`;
    await store.moveBranch(branch, null, manifest.id);
    throw new MnemaraError('HEAD_WAIT_EXPIRED', `${err.message}; snapshot ${manifest.id} is kept on branch ${branch}`, {
      hint: `\`mnemara lineage reset ${options.lineage} ${manifest.id}\` makes it the head; raise snapshot.headWaitMinutes to wait longer.`,
      cause: err,
    });
  }
  return { manifest, conflicts, inherited: manifest.parent ? inherited : [] };
}
