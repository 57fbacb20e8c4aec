/**
 * What a git patch cannot carry, for `apply`: hard-link groups and empty directories. `git apply` writes every
 * name of a linked file as a file of its own and knows no directories, so after it has written the content this
 * step links the snapshot's groups again (a new name becomes another name of the group's first file), gives a
 * host file that the snapshot no longer links to the others a copy of its own, creates the directories the
 * snapshot has and the host lacks (with the snapshot's modes) and removes the directories the snapshot no longer
 * has, as git removes deleted files. A link that cannot be made (another mount: EXDEV; a file system without hard
 * links: EPERM) leaves the copy git wrote, and says so. Every name is checked before it is touched: inside the
 * directory, no `..`, no symlink on the way, a link only to a regular file (never to a symlink).
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { chmod, copyFile, link, lstat, mkdir, rename, rm, rmdir, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UnsafeArchiveError } from './errors.js';
import { DEFAULT_RESTORE_LIMITS } from './limits.js';
import { fsPath, quoteName } from './names.js';
import { guardPath } from './restore-guard.js';
import type { MergedTree } from './tree.js';
import { markParents, readHostTree, type HostShape } from './host-tree.js';

/** What the snapshot's tree holds beyond files: its hard-link groups and its directories (with modes). */
export interface SnapshotShape {
  /** Each group's names, sorted; the first carries the content in the snapshot. Only groups of two or more. */
  groups: string[][];
  /** Every directory (not the root), parents before children, with its permission bits. */
  dirs: Map<string, number>;
  /** Directories that hold no file, link or symlink at any depth (only directories, or nothing). */
  emptyDirs: Set<string>;
}

/** What could not be done as the snapshot has it (and what was done instead). */
export interface StructureWarning {
  path: string;
  /** The name `path` was to be linked to. */
  to?: string;
  message: string;
}

/** The hard links and directories an apply makes (or, with `check`, would make). */
export interface StructureChanges {
  /** `path` became (would become) another name of `to`. */
  linked: Array<{ path: string; to: string }>;
  /** Host files that shared an inode with a name the snapshot holds apart: each got its own copy. */
  unlinked: string[];
  /** Empty directories (holding only directories) the snapshot added, and the ones it removed. */
  dirsAdded: string[];
  dirsRemoved: string[];
  /** Directories both have whose mode the snapshot changed (`chmod 700 dir` in the run): given the snapshot's. */
  dirModes: Array<{ path: string; from: number; to: number }>;
  warnings: StructureWarning[];
}

/** The snapshot's hard-link groups and directories, leaving out what `left` (the patch's filter) leaves out. Pure. */
export function snapshotShape(tree: MergedTree, left: (path: string) => boolean): SnapshotShape {
  const byFirst = new Map<string, string[]>();
  const dirs = new Map<string, number>();
  const hasFile = new Set<string>();
  for (const { path, node } of tree.walk()) {
    if (left(path)) continue;
    const e = node.entry;
    if (e.type === 'dir') {
      dirs.set(path, e.mode & 0o7777);
      continue;
    }
    markParents(hasFile, path);
    if (e.type !== 'hardlink' || e.linkpath === undefined || tree.get(e.linkpath.split('/'))?.entry.type !== 'file') continue;
    const members = byFirst.get(e.linkpath) ?? (left(e.linkpath) ? [] : [e.linkpath]);
    members.push(path);
    byFirst.set(e.linkpath, members);
  }
  const groups = [...byFirst.values()].filter((g) => g.length > 1).map((g) => g.sort(byteOrder));
  return { groups, dirs, emptyDirs: new Set([...dirs.keys()].filter((d) => !hasFile.has(d))) };
}

const errCode = (err: NodeJS.ErrnoException): string => err.code ?? err.message;
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const depth = (p: string): number => p.split('/').length;

/**
 * The links to make and the host files to give their own copy, from the host as it is (`rewritten`: paths the
 * patch is about to write or delete, whose inode will be new). Pure.
 */
function planLinks(shape: SnapshotShape, host: HostShape, rewritten: Set<string>): Pick<StructureChanges, 'linked' | 'unlinked'> {
  const firstOf = new Map<string, string>();
  for (const g of shape.groups) for (const p of g) firstOf.set(p, g[0]!);
  const inode = (p: string): string | undefined => (rewritten.has(p) ? undefined : host.files.get(p)?.inode);
  // A host inode whose names the snapshot holds in more than one group: the largest part keeps the inode, each
  // other part's first name gets a copy of its own (the part's other names are linked to that name below).
  const hostGroups = new Map<string, string[]>();
  for (const [p, f] of host.files) if (f.nlink > 1 && inode(p) !== undefined) hostGroups.set(f.inode, [...(hostGroups.get(f.inode) ?? []), p]);
  const unlinked: string[] = [];
  for (const names of hostGroups.values()) {
    const parts = new Map<string, string[]>();
    for (const p of names.sort(byteOrder)) parts.set(firstOf.get(p) ?? p, [...(parts.get(firstOf.get(p) ?? p) ?? []), p]);
    if (parts.size < 2) continue;
    const keep = [...parts.values()].reduce((a, b) => (b.length > a.length ? b : a));
    for (const [first, part] of parts) if (part !== keep && part.includes(first)) unlinked.push(first);
  }
  const fresh = new Set([...rewritten, ...unlinked]);
  const linked: Array<{ path: string; to: string }> = [];
  for (const [first, ...rest] of shape.groups) {
    for (const p of rest) if (fresh.has(p) || fresh.has(first!) || inode(p) === undefined || inode(p) !== inode(first!)) linked.push({ path: p, to: first! });
  }
  return { linked, unlinked: unlinked.sort(byteOrder) };
}

/**
 * The hard links and empty directories `shape` (the snapshot's) needs in the host directory read as `host`
 * (`readHostTree`), where the patch is about to write `rewritten` (added, changed and removed paths). Pure. The apply itself (`applyStructure`) works
 * from the directory as the patch left it.
 */
export function planStructure(host: HostShape, shape: SnapshotShape, rewritten: Set<string>): StructureChanges & { host: HostShape } {
  return {
    ...planLinks(shape, host, rewritten),
    dirsAdded: [...shape.emptyDirs].filter((d) => !host.dirs.has(d)),
    dirsRemoved: [...host.emptyDirs].filter((d) => !shape.dirs.has(d)),
    dirModes: [...shape.dirs].filter(([d, mode]) => host.dirModes.has(d) && host.dirModes.get(d) !== mode).map(([path, to]) => ({ path, from: host.dirModes.get(path)!, to })),
    warnings: [],
    host,
  };
}

/** True when `changes` holds anything to do or say. */
export function hasStructureChanges(c: StructureChanges): boolean {
  return c.linked.length + c.unlinked.length + c.dirsAdded.length + c.dirsRemoved.length + c.dirModes.length + c.warnings.length > 0;
}

/**
 * Makes `dir` hold `shape`'s hard links and directories, after the patch was applied. `before` is the plan made
 * before the patch (its host view tells the directories that are new, which get the snapshot's mode). Returns
 * what was done; nothing it cannot do throws: it is listed in `warnings`.
 */
export async function applyStructure(dir: string, shape: SnapshotShape, left: (path: string) => boolean, before: StructureChanges & { host: HostShape }): Promise<StructureChanges> {
  const host = (await readHostTree(dir, left)).shape;
  const plan = planLinks(shape, host, new Set());
  const warnings: StructureWarning[] = [];
  const made = new Set<string>();
  for (const [d] of shape.dirs) {
    if (host.dirs.has(d)) continue;
    const why = (await unsafeParents(dir, d)) ?? (await mkdir(fsPath(join(dir, d)), { mode: 0o700 }).then(() => undefined, errCode));
    if (why) warnings.push({ path: d, message: `directory not created: ${why}` });
    else made.add(d);
  }
  const unlinked: string[] = [];
  for (const p of plan.unlinked) {
    const err = await ownCopy(dir, p);
    if (err) warnings.push({ path: p, message: `still shares its inode with other names (${err}); the snapshot holds it apart` });
    else unlinked.push(p);
  }
  const linked = await makeLinks(dir, plan.linked, warnings);
  const dirsRemoved: string[] = [];
  for (const d of [...before.host.dirs].filter((x) => !shape.dirs.has(x)).sort((a, b) => depth(b) - depth(a))) {
    const st = await lstat(fsPath(join(dir, d))).catch(() => undefined);
    if (!st?.isDirectory()) continue; // removed with its files by git apply
    const code = await rmdir(fsPath(join(dir, d))).then(() => undefined, errCode);
    if (code === 'ENOTEMPTY' || code === 'EEXIST') warnings.push({ path: d, message: 'directory kept: the snapshot has no such directory, but it holds files apply leaves alone (ignored or memory files)' });
    else if (code) warnings.push({ path: d, message: `directory not removed (${code})` });
    else if (before.host.emptyDirs.has(d)) dirsRemoved.push(d);
  }
  // Every directory ends with the snapshot's mode (new ones, ones git apply removed with their last file and that
  // were made again here (trial 28 F2: they stayed 0700), ones the run chmod-ed), last and deepest first: a
  // read-only one is filled before it is closed.
  const dirModes: StructureChanges['dirModes'] = [];
  const changedMode = new Map(before.dirModes.map((m) => [m.path, m]));
  for (const [d, mode] of [...shape.dirs].sort((a, b) => depth(b[0]) - depth(a[0]))) {
    if (!made.has(d) && !host.dirs.has(d)) continue;
    const st = await lstat(fsPath(join(dir, d))).catch(() => undefined);
    if (!st?.isDirectory()) continue;
    const code = (st.mode & 0o7777) === mode ? undefined : await chmod(fsPath(join(dir, d)), mode).then(() => undefined, errCode);
    const m = changedMode.get(d);
    if (code) warnings.push({ path: d, message: `directory keeps mode ${(st.mode & 0o7777).toString(8)}, not the snapshot's ${mode.toString(8)} (${code})` });
    else if (m) dirModes.push(m);
  }
  return {
    linked,
    unlinked,
    dirsAdded: before.dirsAdded.filter((d) => made.has(d) || host.dirs.has(d)),
    dirsRemoved: dirsRemoved.sort(byteOrder),
    dirModes: dirModes.sort((a, b) => byteOrder(a.path, b.path)),
    warnings,
  };
}

/**
 * Makes each `path` another name of `to` in `dir` (link aside, rename over: the name never goes missing). A name
 * that fails the checks (`unsafeParents`, `to` not a regular file) is refused and left as it is; a link the file
 * system will not make (EXDEV, EPERM, EMLINK …) leaves the copy in place. Both are listed in `warnings`. Returns
 * the links made.
 */
export async function makeLinks(dir: string, links: Array<{ path: string; to: string }>, warnings: StructureWarning[]): Promise<Array<{ path: string; to: string }>> {
  const made: Array<{ path: string; to: string }> = [];
  for (const l of links) {
    const refused = await linkRefusal(dir, l);
    if (refused) {
      warnings.push({ ...l, message: `hard link refused: ${refused}; nothing written` });
      continue;
    }
    const at = join(dir, l.path);
    const tmp = fsPath(join(dirname(at), `.mnemara-link-${randomBytes(6).toString('hex')}`)); // the directory's name may hold escaped bytes
    try {
      await link(fsPath(join(dir, l.to)), tmp);
      await rename(tmp, fsPath(at));
      made.push(l);
    } catch (err) {
      await rm(tmp, { force: true });
      const code = errCode(err as NodeJS.ErrnoException);
      warnings.push({ ...l, message: `could not be made a hard link of ${quoteName(l.to)} (${code}${code === 'EXDEV' ? ': another file system' : ''}): kept as a separate copy with the same content` });
    }
  }
  return made;
}

/** Why linking `path` to `to` in `dir` is refused (hostile or odd names, a symlink on the way), or undefined. */
async function linkRefusal(dir: string, l: { path: string; to: string }): Promise<string | undefined> {
  for (const p of [l.to, l.path]) {
    const why = await unsafeParents(dir, p);
    if (why) return why;
  }
  const target = await lstat(fsPath(join(dir, l.to))).catch(() => undefined);
  if (!target?.isFile()) return `${quoteName(l.to)} is ${target ? (target.isSymbolicLink() ? 'a symlink' : 'not a regular file') : 'missing'}; only a regular file inside the directory can be linked to`;
  const self = await lstat(fsPath(join(dir, l.path))).catch(() => undefined);
  if (self && !self.isFile()) return `${quoteName(l.path)} is ${self.isSymbolicLink() ? 'a symlink' : 'not a regular file'} here`;
  return undefined;
}

/**
 * Why `path` cannot be written in `dir`: a name a restore refuses (absolute, `..`, …), or a parent that is not a
 * real directory (a symlink: writing through it could leave `dir`). Undefined when it can.
 */
async function unsafeParents(dir: string, path: string): Promise<string | undefined> {
  let segments: string[];
  try {
    segments = guardPath(path, DEFAULT_RESTORE_LIMITS);
  } catch (err) {
    if (err instanceof UnsafeArchiveError) return `${quoteName(path)} would leave the directory (${err.reason})`;
    throw err;
  }
  if (segments.length === 0) return `${JSON.stringify(path)} names the directory itself`;
  for (let i = 1; i < segments.length; i++) {
    const parent = segments.slice(0, i).join('/');
    const st: Stats | undefined = await lstat(fsPath(join(dir, parent))).catch(() => undefined);
    if (st && !st.isDirectory()) return `${quoteName(parent)} is ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'}, so ${quoteName(path)} would be reached through it`;
  }
  return undefined;
}

/** Gives `path` in `dir` a copy of its content of its own (same mode and times), leaving its other names as they are. */
async function ownCopy(dir: string, path: string): Promise<string | undefined> {
  const at = join(dir, path);
  const tmp = fsPath(join(dirname(at), `.mnemara-copy-${randomBytes(6).toString('hex')}`));
  try {
    const st = await lstat(fsPath(at));
    if (!st.isFile()) return 'not a regular file';
    await copyFile(fsPath(at), tmp); // copyFile keeps the mode
    await utimes(tmp, st.atime, st.mtime);
    await rename(tmp, fsPath(at));
    return undefined;
  } catch (err) {
    await rm(tmp, { force: true });
    return errCode(err as NodeJS.ErrnoException);
  }
}
