import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { shortPath } from './short-path.js';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import { fsPath } from './names.js';

const log = logger('snapshot');

/** A staging directory older than this is stale even if a process with its pid runs (the pid was reused). */
export const STALE_STAGING_MS = 24 * 60 * 60 * 1000;
/** Staging directories named before the pid was part of the name are stale after this long. */
const STALE_UNOWNED_MS = 60 * 60 * 1000;

/** True when a process with this pid exists (EPERM: it exists, under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes staging directories of earlier restores into `target` that nobody will finish: named
 * `.<name>.mnemara-restore-<pid>-<hex>` with no process `<pid>` alive, or older than `STALE_STAGING_MS`
 * (`.<name>.mnemara-restore-<hex>`, without a pid, after an hour). Such a directory is left by a restore that
 * was killed (SIGKILL, a crash, a second Ctrl-C) and can hold hundreds of MB. Returns the paths removed.
 */
export async function removeStaleStaging(target: string, now = Date.now()): Promise<string[]> {
  const parent = dirname(target);
  const prefix = `.${basename(target)}.mnemara-restore-`;
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(?:(\d+)-)?[0-9a-f]{12}$/.exec(name.slice(prefix.length));
    if (!m) continue;
    const path = join(parent, name);
    const st = await lstat(path).catch(() => null);
    if (!st?.isDirectory()) continue;
    const age = now - st.mtimeMs;
    const pid = m[1] === undefined ? undefined : Number(m[1]);
    const stale = pid === undefined ? age > STALE_UNOWNED_MS : pid !== process.pid && (!processAlive(pid) || age > STALE_STAGING_MS);
    if (!stale) continue;
    await rm(path, { recursive: true, force: true });
    log.info({ path, pid }, 'removed the staging directory of an interrupted restore');
    removed.push(path);
  }
  return removed;
}

/**
 * A fresh staging directory beside `target` (same filesystem, so the final rename is atomic), named with this
 * process's pid so that a later restore can tell whether it is abandoned; stale ones are removed first.
 */
export async function makeStaging(target: string): Promise<string> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  await removeStaleStaging(target);
  const staging = join(parent, `.${basename(target)}.mnemara-restore-${process.pid}-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { mode: 0o700 });
  return staging;
}

/**
 * Puts a fully extracted `staging` in place of `target`: `target` is renamed aside, `staging` renamed in,
 * and the old tree removed. If the second rename fails, the old tree is put back, so `target` ends up
 * either as it was or as the snapshot, never a mix. Keeps the target directory's own mode.
 */
export async function swapInto(staging: string, target: string): Promise<void> {
  const old = await stat(target).catch(() => null);
  if (old && !old.isDirectory()) {
    throw new MnemaraError('INVALID_INPUT', `restore target ${target} exists and is not a directory`, {
      hint: 'Pass a directory (existing or new) as the restore target.',
    });
  }
  await chmod(staging, old ? old.mode & 0o7777 : 0o755);
  // The target directory keeps its owner too (a restore as root must not re-own a user's directory).
  if (old && process.getuid?.() === 0) await chown(staging, old.uid, old.gid);
  if (!old) {
    await rename(staging, target);
    return;
  }
  const aside = join(dirname(target), `.${basename(target)}.mnemara-old-${randomBytes(6).toString('hex')}`);
  try {
    await rename(target, aside);
  } catch (err) {
    // A mount point (a Docker volume, a separate filesystem) cannot be renamed: say so instead of a bare EBUSY.
    throw new MnemaraError('RESTORE_FAILED', `cannot swap the restored tree into ${target}: ${(err as Error).message}`, {
      hint: 'Restore into a new directory (or one inside this mount point), or restore only some paths with --path.',
      cause: err,
    });
  }
  try {
    await rename(staging, target);
  } catch (err) {
    await rename(aside, target);
    throw err;
  }
  await removeTree(aside);
}

/**
 * Removes a tree even when it holds read-only directories (which `rm` cannot empty as a non-root user):
 * on EACCES the directories are made writable, then it is removed again. Never leaves a `.mnemara-old-*`.
 */
export async function removeTree(path: string): Promise<void> {
  // Through a short alias: the tree may hold paths that only fit PATH_MAX relative to a short prefix.
  const st = await lstat(path).catch(() => null);
  if (!st?.isDirectory()) return void (await rm(path, { recursive: true, force: true }));
  const alias = await shortPath(path);
  try {
    const emptyIt = async (): Promise<void> => {
      for (const name of await readdir(alias.path, { encoding: 'buffer' })) {
        await rm(Buffer.concat([Buffer.from(`${alias.path}/`), name]), { recursive: true, force: true });
      }
    };
    try {
      await emptyIt();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EPERM') throw err;
      await chmod(path, (st.mode & 0o7777) | 0o700).catch(() => undefined);
      for (const name of await readdir(alias.path, { encoding: 'buffer' })) await makeWritable(Buffer.concat([Buffer.from(`${alias.path}/`), name]));
      await emptyIt();
    }
  } finally {
    await alias.release();
  }
  await rm(path, { recursive: true, force: true });
}

/** Adds u+rwx to every directory under `dir` (paths as bytes: any name). */
async function makeWritable(dir: Buffer): Promise<void> {
  const st = await lstat(dir).catch(() => null);
  if (!st?.isDirectory()) return;
  await chmod(dir, (st.mode & 0o7777) | 0o700).catch(() => undefined);
  for (const name of await readdir(dir, { encoding: 'buffer' }).catch(() => [] as Buffer[])) {
    await makeWritable(Buffer.concat([dir, Buffer.from('/'), name]));
  }
}

/**
 * Replaces only `paths` (guarded segments) of `target` with what `staging` holds for them (a path absent
 * from the snapshot is removed from the target); everything else in `target` stays. Each path is swapped
 * by rename; an ancestor that is a symlink in the target is refused rather than followed.
 */
export async function swapPaths(staging: string, target: string, paths: string[][]): Promise<void> {
  await mkdir(target, { recursive: true });
  const aside = join(target, `.mnemara-old-${randomBytes(6).toString('hex')}`);
  await mkdir(aside, { mode: 0o700 });
  try {
    for (const [i, segs] of paths.entries()) {
      if (segs.length === 0) throw new MnemaraError('INVALID_INPUT', 'a restore path must not be the whole tree', { hint: 'Leave out paths to restore everything.' });
      for (let k = 1; k < segs.length; k++) {
        const anc = join(target, ...segs.slice(0, k));
        const st = await lstat(fsPath(anc)).catch(() => null);
        if (st && !st.isDirectory()) {
          throw new MnemaraError('INVALID_INPUT', `cannot restore ${segs.join('/')}: ${anc} is not a directory`, {
            hint: 'Remove or rename that path in the target and retry.',
          });
        }
        if (!st) await mkdir(fsPath(anc));
      }
      const dest = join(target, ...segs);
      // Segments are names as escaped by names.ts: every file-system call gets the bytes back through fsPath.
      if (await lstat(fsPath(dest)).then(() => true, () => false)) await renameAcross(dest, join(aside, String(i)));
      const src = join(staging, ...segs);
      if (await lstat(fsPath(src)).then(() => true, () => false)) await renameAcross(src, dest);
    }
  } finally {
    await removeTree(aside);
  }
}

/**
 * `rename` to another parent directory as a user without root's rights: a directory that moves needs write
 * permission on itself (its `..` changes) and both parents need it too, which a read-only directory (0555, a
 * restored snapshot's or the target's) lacks. Owner write is added for the rename and the modes put back after.
 */
async function renameAcross(from: string, to: string): Promise<void> {
  if (process.getuid?.() === 0) return rename(fsPath(from), fsPath(to));
  const lifted: Array<{ path: string; mode: number }> = [];
  const lift = async (path: string): Promise<void> => {
    const st = await lstat(fsPath(path)).catch(() => null);
    if (!st?.isDirectory() || st.mode & 0o200) return;
    await chmod(fsPath(path), (st.mode & 0o7777) | 0o200).catch(() => undefined);
    lifted.push({ path, mode: st.mode & 0o7777 });
  };
  await lift(dirname(from));
  await lift(dirname(to));
  await lift(from);
  let moved = false;
  try {
    await rename(fsPath(from), fsPath(to));
    moved = true;
  } finally {
    for (const { path, mode } of lifted.reverse()) await chmod(fsPath(moved && path === from ? to : path), mode).catch(() => undefined);
  }
}
