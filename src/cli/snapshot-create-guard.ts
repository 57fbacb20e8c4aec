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
  return { base, sameCode: (a, b) => sameCode(store, a, b, layoutDirs) };
}

/** The lines `snapshot create` prints when the snapshot was kept on `branch` instead of the head: where and how to get it. */
export function describeBranched(dir: string, id: string, lineage: string, branch: string, head: string | null, redactionLine: string | null): string {
  return [
    `${id}  NOT on the head of ${lineage}: its code moved since ${dir} was restored (another snapshot or session landed first)`,
    `  kept on branch ${branch}; the head stays ${head ?? '(none)'}`,
    `  get it:  mnemara snapshot restore ${branch} DIR`,
    `  compare: mnemara snapshot diff ${head ?? lineage} ${branch}`,
    `  make it the head: mnemara lineage reset ${lineage} ${id}   (or restore the head, redo your change there and snapshot again)`,
    ...(redactionLine ? [`  ${redactionLine}`] : []),
  ].join('\n');
}
