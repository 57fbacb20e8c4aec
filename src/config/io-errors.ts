import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { MnemaraError } from './errors.js';

/** errno codes that mean "the disk is full" (ENOSPC, or a quota: EDQUOT) and other I/O failures of the host. */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
const IO_FAILED = new Set(['EIO', 'EROFS', 'EMFILE', 'ENFILE', 'EFBIG']);

/** Whether the file at `path` exists and holds at least one byte. */
function written(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}

/** The errno code of an I/O failure anywhere in `err`'s cause chain, or `null` (e.g. `ENOSPC`). */
export function ioFailureCode(err: unknown): string | null {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (DISK_FULL.has(code) || IO_FAILED.has(code))) return code;
    const m = /\b(ENOSPC|EDQUOT|EIO|EROFS|EMFILE|ENFILE|EFBIG)\b/.exec((e as Error).message ?? '');
    if (m) return m[1] as string;
  }
  return null;
}

/**
 * The directory whose filesystem failed: the `path` a Node fs error carries, anywhere in `err`'s cause chain, up to
 * its nearest existing ancestor (a file the full disk never created does not exist); `null` when none says.
 */
export function failedDirOf(err: unknown): string | null {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const path = (e as { path?: unknown }).path;
    if (typeof path !== 'string' || !isAbsolute(path)) continue;
    let dir = dirname(path);
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
    return dir;
  }
  return null;
}

/** What a failed step had already saved, so the message can name it. */
export interface SavedWork {
  /** The mnemara home (its filesystem is the one to free unless the error names another). */
  home: string;
  /**
   * The snapshot store's directory when it is not `<home>/store` (`--store`, `MNEMARA_STORE`, `snapshot.store`):
   * its filesystem is where snapshots fill, and the cleanup commands must be told it (trial 22 F4).
   */
  store?: string;
  transcriptPath?: string;
  workspaceSnapshot?: string;
  /** Branch holding the workspace snapshot (the rollout pending there). */
  branch?: string;
  /**
   * The command that failed, when it is not a run (`recover`, `snapshot create` …): there is no run's work to
   * name, and the way on is that command again, not `mnemara recover`.
   */
  command?: string;
}

/**
 * One clear error for a host I/O failure (no stack trace): what failed, what was saved where, how to free space
 * and bring the saved rollout back. `DISK_FULL` for ENOSPC/EDQUOT, `IO_FAILED` otherwise; exit 3.
 */
export function ioFailureError(err: unknown, doing: string, saved: SavedWork): MnemaraError {
  const code = ioFailureCode(err) ?? 'EIO';
  const full = DISK_FULL.has(code);
  const what = [
    saved.workspaceSnapshot ? `workspace snapshot ${saved.workspaceSnapshot}${saved.branch ? ` (branch ${saved.branch})` : ''}` : null,
    saved.transcriptPath && written(saved.transcriptPath) ? `transcript ${saved.transcriptPath}` : null,
  ].filter(Boolean);
  // A transcript the full disk left empty is no saved work (twelfth trial: "Saved: transcript …" named 0 bytes).
  const lost = saved.transcriptPath && !written(saved.transcriptPath) ? ` The transcript ${saved.transcriptPath} is empty: the disk filled before any of it was written.` : '';
  const other = saved.command !== undefined && saved.command !== 'run';
  const message =
    `${full ? 'the disk is full' : 'an I/O error'} (${code}) while ${doing}. ` +
    (what.length ? `Saved: ${what.join('; ')}.` : other ? 'Nothing was changed beyond what the store already held.' : 'Nothing of this run was saved beyond what the store already held.') +
    lost;
  // The filesystem that failed, as the error names it: a store elsewhere (`--store /mnt/x`) fills its own disk,
  // and the home's `df` showed free space (trial 22 F4).
  const where = failedDirOf(err) ?? saved.store ?? saved.home;
  const flag = saved.store ? ` --store ${saved.store}` : '';
  const cleanup = `\`mnemara snapshot gc --grace 0${flag}\`, \`mnemara snapshot prune --keep 5${flag}\``;
  const verify = `\`mnemara snapshot verify${flag}\``;
  if (other) {
    const again = `then run \`mnemara ${saved.command}${flag}\` again. The store is still valid (${verify}).`;
    const hint = full
      ? `Free space on the filesystem of ${where} (\`df -h ${where}\`): ${cleanup}, files of your own there; ${again}`
      : `Check the filesystem of ${where} (\`dmesg\`, \`df -h ${where}\`); ${again}`;
    return new MnemaraError(full ? 'DISK_FULL' : 'IO_FAILED', message, { hint, cause: err });
  }
  const hint = full
    ? `Free space on the filesystem of ${where} (\`df -h ${where}\`): ${cleanup}; then \`mnemara recover${flag}\` brings the saved rollout into its lineage's memory and saves the work of killed sessions' sandboxes; only after it, \`mnemara sandbox prune\` removes leftover sandboxes. The store is still valid (${verify}).`
    : `Check the filesystem of ${where} (\`dmesg\`, \`df -h ${where}\`); then \`mnemara recover${flag}\` brings the saved rollout into its lineage's memory, and ${verify} checks the store.`;
  return new MnemaraError(full ? 'DISK_FULL' : 'IO_FAILED', message, { hint, cause: err });
}

/**
 * `{ store }` for SavedWork when the configured store (`snapshot.store`) is a directory other than `<home>/store`;
 * `{}` for the default and for an object store (`s3://…`, whose fullness no local `df` shows).
 */
export function explicitStore(home: string, store: string | undefined): { store?: string } {
  if (!store || /^[a-z][a-z0-9+.-]*:\/\//i.test(store) || resolve(store) === resolve(join(home, 'store'))) return {};
  return { store: resolve(store) };
}
