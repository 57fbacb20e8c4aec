import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { HeadConflictError } from './errors.js';
import { HeadWaitExpiredError, retryHeadMove } from './head-retry.js';
import type { MergedTree } from './tree.js';
import type { CreateSnapshotOptions, Manifest, SnapshotSource, SnapshotStore } from './types.js';

/** What `createOnHead` did: the snapshot now at the head, and how often the head had moved under it. */
export interface CreatedOnHead {
  manifest: Manifest;
  /** Times another writer moved the head first and the snapshot was packed again on top of the new head. */
  conflicts: number;
  /** Directories of `inheritMissing` that `dir` lacks and that were kept as the head had them. */
  inherited: string[];
  /** Files of `keepRecords` directories the head had and `dir` lacked, kept (other runs' records). */
  keptRecords: string[];
  /**
   * Set when the code of `dir` was not made from the head (the head's code moved since `base`, or during the
   * create): the snapshot is not on the head but on this branch `LINEAGE@<snapshot-id>`, and the head is unchanged.
   */
  branch?: string;
  /**
   * With `branch`: when the head's code moved. `before`: between the snapshot `dir` was restored from or last
   * snapshotted as (`CodeGuard.base`, from its restore marker) and this create; `during`: while this create ran
   * (the head it read at its start, or packed on, was replaced by another writer's code).
   */
  moved?: 'before' | 'during';
}

/**
 * Guards the head against a directory that was not made from it (`snapshot create`, issue 10: six concurrent
 * creates of copies of the head each re-based themselves on the winner, deleting the others' files from it).
 * `base`: the snapshot `dir` was restored from (its restore marker), or the head read at the start when `dir`
 * has none. `sameCode(a, b)`: true when snapshots `a` and `b` differ only in the memory layout (`code-contained.ts`).
 */
export interface CodeGuard {
  base: string | null;
  /** `marker`: `base` is the snapshot `dir` was restored from or last snapshotted as; `head`: the head read at the start. */
  from: 'marker' | 'head';
  sameCode: (a: string, b: string) => Promise<boolean>;
}

/** A store that can give a snapshot's merged tree (both stores can). */
type TreeStore = SnapshotStore & { tree?: (id: string, options: { hashContent?: boolean }) => Promise<MergedTree> };

/** Record names mnemara writes (rollout ids, `.md`, `.jsonl`): anything else is not kept by name. */
const RECORD_NAME = /^[A-Za-z0-9._@+-]+$/;

/**
 * The files under the `recordDirs` of `head` that `dir` lacks: another run's rollout records (its session record,
 * rollout summary, raw memories), written to the head after `dir` was restored. Records are only ever added, so a
 * stale copy of the workspace (a person's edit of MEMORY.md, restored before a session ended) must not delete them.
 */
async function recordsToKeep(store: TreeStore, head: string | null, dir: string, recordDirs: string[]): Promise<string[]> {
  if (!head || recordDirs.length === 0 || !store.tree) return [];
  const tree = await store.tree(head, { hashContent: false });
  const keep: string[] = [];
  for (const { path, segments, node } of tree.walk()) {
    if (node.entry.type !== 'file' || !segments.every((s) => RECORD_NAME.test(s))) continue;
    if (recordDirs.some((d) => path.startsWith(`${d}/`)) && !existsSync(join(dir, ...segments))) keep.push(path);
  }
  return keep;
}

/**
 * What to leave out of the pack so that `records` stay: each record's topmost ancestor that `dir` lacks (a
 * missing directory would otherwise be deleted with everything in it), or the record itself. Sorted, no repeats.
 */
function inheritedPaths(dir: string, records: string[]): string[] {
  const out = new Set<string>();
  for (const record of records) {
    const segments = record.split('/');
    let i = 1;
    while (i < segments.length && existsSync(join(dir, ...segments.slice(0, i)))) i++;
    out.add(segments.slice(0, i).join('/'));
  }
  return [...out].sort();
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
 * parent to keep them from. `keepRecords` (the memory layout's append-only record directories: `sessions`,
 * `memories/rollout_summaries`, `memories/raw_memories`): every file the head has there and `dir` lacks is kept,
 * for the head of each attempt (a session that lands while this one packs keeps its rollout); not with `full`.
 * `beforePack(parent)` runs before each pack (e.g. to merge the head's memory into `dir`, `hand-memory.ts`).
 * Throws what `create` throws for bad input.
 */
export async function createOnHead(
  store: SnapshotStore,
  dir: string,
  options: Omit<CreateSnapshotOptions, 'parent'> & {
    full?: boolean;
    boundMs: number;
    inheritMissing?: string[];
    keepRecords?: string[];
    beforePack?: (parent: string | null) => Promise<void>;
    guard?: CodeGuard;
  },
): Promise<CreatedOnHead> {
  const { full, boundMs, inheritMissing, keepRecords, beforePack, guard, ...create } = options;
  const source: SnapshotSource = { dir };
  const inherited = full ? [] : (inheritMissing ?? []).filter((d) => !existsSync(join(dir, d)));
  // An ignored path is neither packed nor deleted: the delta inherits it from the parent.
  const baseIgnore = [...(create.ignore ?? []), ...inherited.map((d) => `/${d}`)];
  let keptRecords: string[] = [];
  const pack = async (parent: string | null): Promise<Manifest> => {
    await beforePack?.(parent);
    keptRecords = full ? [] : await recordsToKeep(store, parent, dir, (keepRecords ?? []).filter((d) => !inherited.includes(d.split('/')[0]!)));
    const ignore = [...baseIgnore, ...inheritedPaths(dir, keptRecords).map((p) => `/${p}`)];
    return store.create(source, { ...create, ...(ignore.length ? { ignore } : {}), parent });
  };
  let head = await store.getHead(options.lineage);
  // The head's code moved away from what `dir` was made from: a move from nothing, or to other code.
  const codeMoved = async (from: string | null, to: string | null): Promise<boolean> =>
    from !== to && (from === null || to === null || !(await guard!.sameCode(from, to)));
  const branched = async (m: Manifest, conflicts: number, moved: 'before' | 'during'): Promise<CreatedOnHead> => {
    const branch = `${options.lineage}@${m.id}`;
    await store.moveBranch(branch, null, m.id);
    return { manifest: m, conflicts, inherited: m.parent ? inherited : [], keptRecords: m.parent ? keptRecords : [], branch, moved };
  };
  if (guard && head !== null && (await codeMoved(guard.base, head))) {
    // Packed on its own base, so the snapshot holds exactly `dir` and the head keeps the other writers' code.
    const known = guard.base !== null && (await store.get(guard.base).then(() => true, () => false));
    // Without a restore marker the base is the head read at the start: it moved during this create.
    return branched(await pack(full || !known ? null : guard.base), 0, guard.from === 'marker' ? 'before' : 'during');
  }
  let manifest = await pack(full ? null : head);
  let conflicts = 0;
  let stray = false;
  try {
    await retryHeadMove(
      options.lineage,
      async () => {
        if (!stray) await store.advanceHead(options.lineage, head, manifest.id);
      },
      async (err) => {
        if (!(err instanceof HeadConflictError)) return;
        conflicts += 1;
        if (guard && (await codeMoved(head, err.current))) {
          stray = true; // another writer's code landed first: `dir` was not made from it
          return;
        }
        head = err.current;
        if (!full) manifest = await pack(head);
      },
      { boundMs },
    );
    if (stray) return branched(manifest, conflicts, 'during');
  } catch (err) {
    if (!(err instanceof HeadWaitExpiredError)) throw err;
    const branch = `${options.lineage}@${manifest.id}`;
    await store.moveBranch(branch, null, manifest.id);
    throw new MnemaraError('HEAD_WAIT_EXPIRED', `${err.message}; snapshot ${manifest.id} is kept on branch ${branch}`, {
      hint: `\`mnemara lineage reset ${options.lineage} ${manifest.id}\` makes it the head; raise snapshot.headWaitMinutes to wait longer.`,
      cause: err,
    });
  }
  return { manifest, conflicts, inherited: manifest.parent ? inherited : [], keptRecords: manifest.parent ? keptRecords : [] };
}
