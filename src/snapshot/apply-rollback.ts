/**
 * All or nothing for `apply`'s write step. `git apply` checks every hunk before it writes, but its write phase is
 * not atomic: a file it cannot write (a directory where the patch has a file, an immutable file, a read-only
 * mount) stops it after it has already removed and written others (new-user trial 28 F1: a tracked symlink was
 * gone after "nothing was written"). So before it runs, every host path the patch removes or changes is saved in
 * a backup directory inside the host directory (same file system: a hard link, or a copy when the link is
 * refused; symlinks as symlinks, modes and times kept), the directories on the way are noted (mode, times), and
 * the paths it creates are noted. On failure `rollback` puts all of it back as it was and removes what was
 * created; when that fails too, it says what is left and keeps the backup.
 */
import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { chmod, copyFile, lchown, link, lstat, mkdir, readlink, rename, rm, rmdir, symlink, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { displayName, fsPath } from './names.js';

interface SavedPath {
  path: string;
  /** The saved copy, inside the backup directory. */
  copy: string;
  /** The host path's stat once saved: equal later means git apply never touched it. */
  stat: BigIntStats;
}

interface DirState {
  path: string;
  mode: number;
  uid: number;
  gid: number;
  /** Seconds, as precise as a double holds them (a Date would cut them to the millisecond). */
  atime: number;
  mtime: number;
}

export interface ApplyBackup {
  dir: string;
  /** The backup directory (absolute). */
  root: string;
  saved: SavedPath[];
  /** Real directories on the way to the patch's paths (and `''`, the root), as they were. */
  dirs: DirState[];
  /** The paths the patch creates. */
  created: string[];
}

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);
const depth = (p: string): number => (p === '' ? 0 : p.split('/').length);
const at = (dir: string, p: string): string | Buffer => (p === '' ? dir : fsPath(join(dir, p)));
const ancestors = (p: string): string[] => {
  const segs = p.split('/');
  return segs.map((_, i) => segs.slice(0, i).join('/'));
};

/**
 * Saves what the patch will touch in `dir`: `touched` (removed and changed paths), the directories on the way to
 * them and to `created` (new paths), and `cleared` (empty directories about to be removed). Nothing in the host
 * tree is changed except its root gaining the backup directory.
 */
export async function backupForApply(dir: string, touched: string[], created: string[], cleared: string[]): Promise<ApplyBackup> {
  const dirs = new Map<string, DirState>();
  const note = async (p: string): Promise<boolean> => {
    if (dirs.has(p)) return true;
    const st = await lstat(at(dir, p)).catch(() => undefined);
    if (!st?.isDirectory()) return false;
    dirs.set(p, { path: p, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, atime: st.atimeMs / 1000, mtime: st.mtimeMs / 1000 });
    return true;
  };
  for (const p of [...touched, ...created, ...cleared]) {
    for (const a of ancestors(p)) if (!(await note(a))) break;
  }
  for (const d of cleared) await note(d);
  const root = join(dir, `.mnemara-apply-backup-${randomBytes(6).toString('hex')}`);
  const backup: ApplyBackup = { dir, root, saved: [], dirs: [...dirs.values()], created: [...created] };
  try {
    await mkdir(root, { mode: 0o700 });
    await save(backup, touched);
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    const d = backup.dirs.find((x) => x.path === '');
    if (d) await utimes(dir, d.atime, d.mtime).catch(() => undefined);
    throw new MnemaraError('APPLY_FAILED', `the files apply would change could not be saved first (${errCode(err)}), so nothing was written`, {
      hint: `apply saves them in ${dir}/.mnemara-apply-backup-… to put them back if git apply fails; make ${dir} writable and run it again.`,
      cause: err,
    });
  }
  return backup;
}

async function save(backup: ApplyBackup, touched: string[]): Promise<void> {
  const { dir, root } = backup;
  for (const [i, p] of touched.entries()) {
    const host = at(dir, p);
    const st = await lstat(host).catch(() => undefined);
    if (!st || st.isDirectory()) continue;
    const copy = join(root, String(i));
    try {
      await link(host, copy); // the same inode: git apply removes the old file and writes a new one
    } catch {
      if (st.isSymbolicLink()) await symlink(await readlink(host, { encoding: 'buffer' }), copy);
      else {
        await copyFile(host, copy);
        await chmod(copy, st.mode & 0o7777);
        await utimes(copy, st.atime, st.mtime);
      }
    }
    backup.saved.push({ path: p, copy, stat: await lstat(host, { bigint: true }) });
  }
}

/** Removes the backup (after a successful apply). */
export async function dropBackup(b: ApplyBackup): Promise<void> {
  await rm(b.root, { recursive: true, force: true });
}

const same = (a: BigIntStats, b: BigIntStats): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.ctimeNs === b.ctimeNs && a.mtimeNs === b.mtimeNs && a.size === b.size && a.mode === b.mode;

/**
 * Puts `dir` back as `backupForApply` found it: removes what was created (files, then the directories made for
 * them), makes the directories that went missing, puts every saved path back, and gives the directories their
 * modes, owners and times again. Returns how many paths had to be put back or removed, and what could not be
 * (empty when all was restored; the backup is removed only then).
 */
export async function rollback(b: ApplyBackup): Promise<{ undone: number; left: string[] }> {
  const left: string[] = [];
  let undone = 0;
  const known = new Set(b.dirs.map((d) => d.path));
  const savedPaths = new Set(b.saved.map((s) => s.path));
  for (const p of b.created) {
    if (savedPaths.has(p)) continue;
    const st = await lstat(at(b.dir, p)).catch(() => undefined);
    if (!st || st.isDirectory()) continue;
    await unlink(at(b.dir, p)).then(
      () => (undone += 1),
      (err) => left.push(`${displayName(p)} was written and could not be removed (${errCode(err)})`),
    );
  }
  const madeDirs = new Set<string>();
  for (const p of [...b.created, ...b.saved.map((s) => s.path)]) for (const a of ancestors(p).slice(1)) if (!known.has(a)) madeDirs.add(a);
  for (const d of [...madeDirs].sort((x, y) => depth(y) - depth(x))) {
    const st = await lstat(at(b.dir, d)).catch(() => undefined);
    if (!st?.isDirectory()) continue;
    await rmdir(at(b.dir, d)).then(
      () => (undone += 1),
      (err) => left.push(`directory ${displayName(d)}/ was created and could not be removed (${errCode(err)})`),
    );
  }
  for (const d of [...b.dirs].sort((x, y) => depth(x.path) - depth(y.path))) {
    const st = await lstat(at(b.dir, d.path)).catch(() => undefined);
    if (st?.isDirectory()) continue;
    if (st) await unlink(at(b.dir, d.path)).catch(() => undefined);
    await mkdir(at(b.dir, d.path), { mode: 0o700 }).then(
      () => (undone += 1),
      (err) => left.push(`directory ${displayName(d.path)}/ was removed and could not be made again (${errCode(err)})`),
    );
  }
  for (const s of b.saved) {
    const host = at(b.dir, s.path);
    const now = await lstat(host, { bigint: true }).catch(() => undefined);
    if (now && same(now, s.stat)) continue; // never touched
    try {
      if (now?.isDirectory()) await rmdir(host);
      try {
        await rename(s.copy, host);
      } catch (err) {
        if (errCode(err) !== 'EXDEV') throw err;
        const st = await lstat(s.copy);
        await rm(host, { force: true });
        if (st.isSymbolicLink()) await symlink(await readlink(s.copy, { encoding: 'buffer' }), host);
        else {
          await copyFile(s.copy, host);
          await chmod(host, st.mode & 0o7777);
          await utimes(host, st.atime, st.mtime);
        }
      }
      undone += 1;
    } catch (err) {
      left.push(`${displayName(s.path)} could not be put back (${errCode(err)}); its saved copy is ${s.copy}`);
    }
  }
  if (left.length === 0) await rm(b.root, { recursive: true, force: true }).catch((err) => left.push(`the backup ${b.root} could not be removed (${errCode(err)})`));
  // Modes, owners and times last, deepest first: every change above moved the times of the directories it was in.
  for (const d of [...b.dirs].sort((x, y) => depth(y.path) - depth(x.path))) {
    const p = at(b.dir, d.path);
    await lchown(p, d.uid, d.gid).catch(() => undefined);
    await chmod(p, d.mode).catch((err) => left.push(`directory ${displayName(d.path || '.')}/ keeps another mode (${errCode(err)})`));
    await utimes(p, d.atime, d.mtime).catch(() => undefined);
  }
  return { undone, left };
}
