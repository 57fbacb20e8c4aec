import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename, rm, stat, chmod } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MnemaraError } from '../config/errors.js';

/** A fresh staging directory beside `target` (same filesystem, so the final rename is atomic). */
export async function makeStaging(target: string): Promise<string> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const staging = join(parent, `.${basename(target)}.mnemara-restore-${randomBytes(6).toString('hex')}`);
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
  await rm(aside, { recursive: true, force: true });
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
        const st = await lstat(anc).catch(() => null);
        if (st && !st.isDirectory()) {
          throw new MnemaraError('INVALID_INPUT', `cannot restore ${segs.join('/')}: ${anc} is not a directory`, {
            hint: 'Remove or rename that path in the target and retry.',
          });
        }
        if (!st) await mkdir(anc);
      }
      const dest = join(target, ...segs);
      if (await lstat(dest).then(() => true, () => false)) await rename(dest, join(aside, String(i)));
      const src = join(staging, ...segs);
      if (await lstat(src).then(() => true, () => false)) await rename(src, dest);
    }
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
}
