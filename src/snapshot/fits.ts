import { MnemaraError } from '../config/errors.js';
import { compileIgnore } from './ignore.js';
import { resolveLimits } from './limits.js';
import { displayName } from './names.js';
import type { RestoreLimits } from './types.js';
import type { MergedTree } from './tree.js';
import { walkTree } from './walk.js';

/** What to do about a file or tree over a restore limit (the same words wherever it is found). */
export const OVER_LIMIT_HINT =
  'Add the large paths to snapshot.ignore (mnemara config or MNEMARA_SNAPSHOT_IGNORE, e.g. MNEMARA_SNAPSHOT_IGNORE=big.img,__pycache__; setting it replaces the default list), or delete or move them out of the workspace, then run again.';

/**
 * The error for one file of `size` bytes over `limit` bytes of content (`maxTotalBytes`): no snapshot holding it
 * could be restored. `MnemaraError('INVALID_INPUT')` (exit 2), naming the file (as printed), size and limit.
 */
export function fileOverLimit(path: string, size: number, limit: number, where = 'the snapshot'): MnemaraError {
  return new MnemaraError('INVALID_INPUT', `${displayName(path)} is ${size} bytes, over the restore limit of ${limit} bytes of content (a sparse file counts with its apparent size), so ${where} could never be restored`, {
    hint: OVER_LIMIT_HINT,
  });
}

/**
 * Checks, before anything is copied, that a snapshot of `dir` (minus `ignore` patterns, names `create` would
 * leave out left out) could be restored: no single file over `maxTotalBytes`, in all at most `maxTotalBytes`
 * content bytes and `maxFiles` entries. The same limits `create` applies to the tree it packs, so a session
 * refuses up front what its workspace snapshot would refuse after the agent's whole run. Only stats are read
 * (a sparse file costs nothing). Throws `MnemaraError('INVALID_INPUT')` naming the file or totals and the limit.
 */
export async function assertTreeFits(dir: string, ignore: string[], partial?: Partial<RestoreLimits>): Promise<void> {
  const limits = resolveLimits(partial);
  const where = `a snapshot of the workspace ${dir}`;
  let files = 0;
  let bytes = 0;
  let largest = { path: '', size: 0 };
  for await (const entry of walkTree(dir, [], { ignore: compileIgnore(ignore), onSkip: () => undefined })) {
    files += 1;
    if (entry.type !== 'file') continue;
    const size = entry.stats.size;
    if (size > limits.maxTotalBytes) throw fileOverLimit(entry.path, size, limits.maxTotalBytes, where);
    bytes += size;
    if (size > largest.size) largest = { path: entry.path, size };
  }
  const over =
    files > limits.maxFiles ? `${files} entries, over the restore limit of ${limits.maxFiles}` :
    bytes > limits.maxTotalBytes ? `${bytes} bytes of content, over the restore limit of ${limits.maxTotalBytes} bytes (largest: ${displayName(largest.path)}, ${largest.size} bytes)` :
    null;
  if (over) throw new MnemaraError('INVALID_INPUT', `${where} would hold ${over}, so it could never be restored`, { hint: OVER_LIMIT_HINT });
}

/**
 * What create accepts, restore restores: the new snapshot's merged tree must fit the restore limits (total
 * content bytes, entries). Throws `MnemaraError('INVALID_INPUT')` naming the limit (exit 2), before any
 * manifest is written. A sparse file counts with its apparent size (a restore writes it sparse again).
 */
export function assertRestorable(tree: MergedTree, limits: RestoreLimits): void {
  let files = 0;
  let bytes = 0;
  let largest = { path: '', size: 0 };
  for (const { path, node } of tree.walk()) {
    files += 1;
    if (node.entry.type !== 'file') continue;
    bytes += node.entry.size;
    if (node.entry.size > largest.size) largest = { path, size: node.entry.size };
  }
  const over =
    files > limits.maxFiles ? `${files} entries, over the restore limit of ${limits.maxFiles}` :
    bytes > limits.maxTotalBytes ? `${bytes} bytes of content, over the restore limit of ${limits.maxTotalBytes} bytes (largest: ${displayName(largest.path)}, ${largest.size} bytes)` :
    null;
  if (over) {
    throw new MnemaraError('INVALID_INPUT', `the snapshot would hold ${over}, so it could never be restored`, {
      hint: OVER_LIMIT_HINT,
    });
  }
}
