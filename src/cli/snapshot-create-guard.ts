import { sameCode } from '../session/code-contained.js';
import type { CodeGuard } from '../snapshot/create-on-head.js';
import type { AnyStore } from '../snapshot/index.js';

/**
 * The guard `snapshot create --kind workspace` passes to `createOnHead` (issue 10): `base` is the snapshot the
 * directory was restored from or last snapshotted as (`restoreBase`, from `<home>/restores/`), else the head read
 * now, at the start of the create; two snapshots have the same code when they differ only under the memory
 * layout's directories `layoutDirs` (so a head that moved only in its memory still takes the directory's code).
 */
export async function codeGuard(store: AnyStore, lineage: string, restoreBase: string | undefined, layoutDirs: string[]): Promise<CodeGuard> {
  const base = restoreBase ?? (await store.getHead(lineage));
  return { base, from: restoreBase === undefined ? 'head' : 'marker', sameCode: (a, b) => sameCode(store, a, b, layoutDirs) };
}

/**
 * The lines `snapshot create` prints when the snapshot was kept on `branch` instead of the head: what happened
 * (`moved`: the head's code moved `before` this create, since `base`, the snapshot `dir` was restored from or
 * last snapshotted as; or `during` it: the loser of a head race, whose `dir` may never have been restored, was
 * told "since DIR was restored", issue 10 trial), where the snapshot is and how to get it.
 */
export function describeBranched(dir: string, id: string, lineage: string, branch: string, head: string | null, redactionLine: string | null, moved: 'before' | 'during' = 'before', base: string | null = null): string {
  const what =
    moved === 'during'
      ? `the head moved to other code during this create (another snapshot or session landed on ${lineage} first), so ${dir} was not made from it`
      : `its code moved since ${dir} was restored from (or last snapshotted as) ${base ?? 'an older head'} (another snapshot or session landed first)`;
  return [
    `${id}  NOT on the head of ${lineage}: ${what}`,
    `  kept on branch ${branch}; the head stays ${head ?? '(none)'}`,
    `  get it:  mnemara snapshot restore ${branch} DIR`,
    `  compare: mnemara snapshot diff ${head ?? lineage} ${branch}`,
    `  make it the head: mnemara lineage reset ${lineage} ${id}   (or restore the head, redo your change there and snapshot again)`,
    ...(redactionLine ? [`  ${redactionLine}`] : []),
  ].join('\n');
}
