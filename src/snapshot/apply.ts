/**
 * Bringing a run's work home: the patch from the host directory to a snapshot (see patch.ts), applied to the
 * host with `git apply` (all or nothing: git checks every hunk before it writes). A run never changes the host
 * directory, and may not have started from it (a run starts from the lineage head): only what the run changed
 * from the tree it started from (`runBase`) is written, the user's files and edits are kept, and a path both
 * changed is refused unless forced. Without that tree, when something in the host was written after the first
 * run it does not hold started, applying would overwrite the user's work, and `applyToHost` refuses unless
 * forced. Hard links and empty directories, which the patch cannot carry, are made after it (`apply-structure.ts`).
 */
import { lstat, readlink, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { MnemaraError } from '../config/errors.js';
import { compareSides, gitStderr, patchFilter, patchOf, same, sha256File, treeFileStates, type FileState, type Patch, type PatchOptions } from './patch.js';
import { backupForApply, dropBackup, rollback, type ApplyBackup } from './apply-rollback.js';
import { readHostTree, type HostTree } from './host-tree.js';
import { fsPath, quoteName } from './names.js';
import { applyStructure, hasStructureChanges, planStructure, snapshotShape, type SnapshotShape, type StructureChanges } from './apply-structure.js';
import type { AnyStore } from './store/open.js';
import type { Manifest } from './types.js';

/** The start time (ms since the epoch) of the oldest rollout id `YYYYMMDDTHHMMSSmmmZ-…` in `ids`, or null. */
export function firstRolloutStart(ids: string[]): number | null {
  let first: number | null = null;
  for (const id of ids) {
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-/.exec(id);
    if (!m) continue;
    const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
    if (first === null || t < first) first = t;
  }
  return first;
}

/**
 * Paths of a host read (`readHostTree`'s `stamps`) written, created, removed or chmod-ed since `sinceMs`: a file's
 * or symlink's own mtime/ctime, or a directory's (which moves when an entry in it is added, removed or renamed).
 * A path that is as an undone apply left it (`undone`, `undoneStamps`: same inode, mode, size and mtime; only its
 * ctime, which cannot be set back, moved) is the undo's own change, not the user's. At most `limit` paths. Pure.
 */
export function changedSince(stamps: HostTree['stamps'], sinceMs: number, undone: ReadonlyArray<UndoneStamp> = [], limit = 20): string[] {
  const undo = new Map(undone.map((u) => [u.path, u.key]));
  const out: string[] = [];
  for (const { path, stats } of stamps) {
    if (Math.max(stats.mtimeMs, stats.ctimeMs) <= sinceMs || undo.get(path) === stampKey(stats)) continue;
    out.push(path);
    if (out.length >= limit) break;
  }
  return out;
}

/** A path (as `changedSince` names it) as an undone apply left it: `stampKey` of its `lstat`. */
export interface UndoneStamp {
  path: string;
  key: string;
}

/** What of a path's `lstat` an undone apply puts back (ctime it cannot): inode, mode, size, mtime. */
const stampKey = (st: { ino: number; mode: number; size: number; mtimeMs: number }): string => `${st.ino}:${st.mode}:${st.size}:${st.mtimeMs}`;

/** The stamps of the paths `rollback` touched (saved paths, the directories on the way and the root), as they are now. */
async function undoneStamps(b: ApplyBackup): Promise<UndoneStamp[]> {
  const out: UndoneStamp[] = [];
  for (const p of [...b.saved.map((s) => s.path), ...b.dirs.map((d) => (d.path === '' ? '.' : `${d.path}/`))]) {
    const st = await lstat(p === '.' ? b.dir : fsPath(join(b.dir, p.replace(/\/$/, '')))).catch(() => undefined);
    if (st) out.push({ path: p, key: stampKey(st) });
  }
  return out;
}

export interface ApplyResult extends Omit<Patch, 'text' | 'bytes' | 'bytesAreText'>, Partial<StructureChanges> {
  snapshot: string;
  dir: string;
  /** False with `check`: nothing was written. */
  applied: boolean;
  /**
   * Symbolic links the patch creates whose target is absolute or climbs out of `dir` (`link -> /etc/hostname`,
   * `-> ../../x`): inside the sandbox they named the container's files, on the host they name the host's.
   */
  linksOutside?: Array<{ path: string; target: string }>;
  /** Host files the patch would have deleted that the snapshot the run started from lacks: the run never saw them. */
  keptHost?: string[];
  /** Host files the user changed and the run did not (same as where it started): not overwritten. */
  keptEdits?: string[];
  /**
   * Files and directories (`dir/`, standing for all it held) the user deleted from the host that the run left as
   * it started: not restored. A directory's files are not listed again.
   */
  keptDeleted?: string[];
}

/**
 * The links a git patch creates (`new file mode 120000`, or a mode changed to it) whose target is absolute or
 * leaves the tree: `path` relative to the patch root, `target` as the link holds it. Pure.
 */
export function linksOutside(patch: string): Array<{ path: string; target: string }> {
  const out: Array<{ path: string; target: string }> = [];
  for (const block of patch.split(/^(?=diff --git )/m)) {
    if (!/^(?:new file mode|new mode) 120000$/m.test(block)) continue;
    const path = /^\+\+\+ b\/(.*)$/m.exec(block)?.[1] ?? /^diff --git a\/\S+ b\/(.*)$/m.exec(block)?.[1];
    const target = /^@@[^\n]*\n\+(.*)$/m.exec(block)?.[1];
    if (!path || target === undefined) continue;
    const depth = path.split('/').length - 1;
    let up = 0;
    let climbs = false;
    for (const seg of target.split('/')) {
      if (seg === '..') up += 1;
      else if (seg !== '.' && seg !== '') up -= 1;
      if (up > depth) climbs = true;
    }
    if (target.startsWith('/') || target.startsWith('~') || climbs) out.push({ path, target });
  }
  return out;
}

/**
 * Since when (ms) `dir` must be unchanged for `rolloutIds` to be applied over it: the start of the first rollout
 * the last apply into it (`lastApply`, `apply-record.ts`) did not hold, and never before that apply ended; without
 * a record, or one of another history (a rollout it held is not in `rolloutIds`), the first rollout's start. Null
 * when the ids name no run. Pure.
 */
export function unchangedSince(rolloutIds: string[], lastApply?: { rolloutIds: string[]; at: number } | null): number | null {
  if (!lastApply || !lastApply.rolloutIds.every((id) => rolloutIds.includes(id))) return firstRolloutStart(rolloutIds);
  const held = new Set(lastApply.rolloutIds);
  const newer = firstRolloutStart(rolloutIds.filter((id) => !held.has(id)));
  return newer === null ? lastApply.at : Math.max(newer, lastApply.at);
}

/**
 * The snapshot the first run of `manifest` that `dir` does not hold yet started from: up its parent chain, the
 * nearest snapshot whose runs the last apply (`lastApply`) held all of (without a record, or with one of another
 * history: the nearest that names no run). Null when there is none to tell (today's mtime guard then): `manifest`
 * names no run, the chain reaches a snapshot whose run started from a host directory (`workspaceFrom`: a fresh or
 * `--memory-from` start, on this lineage or another) or ends, is pruned, or crosses into another lineage.
 */
export async function runBase(store: AnyStore, manifest: Manifest, lastApply?: { rolloutIds: string[] } | null): Promise<string | null> {
  if (manifest.rolloutIds.length === 0) return null;
  const held = new Set(lastApply && lastApply.rolloutIds.every((id) => manifest.rolloutIds.includes(id)) ? lastApply.rolloutIds : []);
  let cur = manifest;
  for (;;) {
    if (cur.rolloutIds.every((id) => held.has(id))) return cur.id;
    // Its run worked on a copy of a host directory (a `--memory-from` start, also on this lineage): its parent is
    // where the memory came from, not the tree the run started from.
    if (cur.workspaceFrom === 'host' || cur.parent === null) return null;
    const parent = await store.get(cur.parent).catch(() => null);
    if (!parent || parent.lineage !== cur.lineage) return null;
    cur = parent;
  }
}

/** Same to git, and known to be by content (a file whose hash the tree does not hold is never the same). */
const sameFile = (x: FileState | undefined, y: FileState | undefined): boolean => x !== undefined && y !== undefined && x.hash !== undefined && same(x, y);

/** True when the host's `path` under `dir` is `want` (type, executable bit, link target, content). */
async function hostHolds(dir: string, path: string, want: FileState): Promise<boolean> {
  const at = fsPath(join(dir, path));
  const st = await lstat(at).catch(() => undefined);
  if (!st) return false;
  if (want.type === 'symlink') return st.isSymbolicLink() && (await readlink(at, 'utf8').catch(() => undefined)) === want.linkpath;
  if (!st.isFile() || st.size !== want.size || ((st.mode & 0o100) !== 0) !== want.exec || want.hash === undefined) return false;
  return (await sha256File(at)) === want.hash;
}

/** What of the difference between the host and a snapshot is the user's, not the run's (`scopeToBase`). */
interface Scope {
  keptHost: string[];
  keptEdits: string[];
  /** Files only (`keptDeletions` adds the directories). */
  keptDeleted: string[];
  conflicts: string[];
}

/**
 * What of the difference `diff` from `dir` to a snapshot is the run's, against `base` (the tree the run started
 * from): `keptHost`, host files the patch would delete that `base` lacks (the run never saw them); `keptEdits`,
 * host files the patch would overwrite where the run left `base`'s version (the user's edit); `keptDeleted`, files
 * the patch would write back that the user deleted and the run left as `base` has them; `conflicts`, paths both
 * changed (the run deleted or changed a file the host also changed or deleted, or both added it differently).
 */
async function scopeToBase(dir: string, diff: Pick<Patch, 'added' | 'removed' | 'changed'>, mine: Map<string, FileState>, base: Map<string, FileState>): Promise<Scope> {
  const out: Scope = { keptHost: [], keptEdits: [], keptDeleted: [], conflicts: [] };
  for (const p of diff.removed) {
    const b = base.get(p);
    if (!b) out.keptHost.push(p);
    else if (!(await hostHolds(dir, p, b))) out.conflicts.push(p);
  }
  for (const p of diff.changed) {
    const b = base.get(p);
    if (!b) out.conflicts.push(p);
    else if (sameFile(mine.get(p), b)) out.keptEdits.push(p);
    else if (!(await hostHolds(dir, p, b))) out.conflicts.push(p);
  }
  // A file the host lacks: the run's to write when it added or changed it, the user's deletion when it did not.
  for (const p of diff.added) {
    const b = base.get(p);
    if (!b) continue;
    if (sameFile(mine.get(p), b)) out.keptDeleted.push(p);
    else out.conflicts.push(p);
  }
  out.conflicts.sort();
  return out;
}

/**
 * The snapshot's directories the user removed from the host and the run did not need: `base` has them, the host
 * does not, and nothing the apply writes (`written` paths, and directories `base` lacks) is inside them. Pure.
 */
function removedDirs(shape: SnapshotShape, base: Set<string>, host: Set<string>, written: string[]): Set<string> {
  const needed = new Set<string>();
  const need = (p: string): void => {
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) needed.add(p.slice(0, i));
  };
  for (const p of written) need(p);
  for (const d of shape.dirs.keys()) if (!base.has(d) && !host.has(d)) need(`${d}/`);
  return new Set([...shape.dirs.keys()].filter((d) => base.has(d) && !host.has(d) && !needed.has(d)));
}

/** `files` and `dirs` (as `dir/`) without the ones inside a listed directory: what the user deleted, top down. */
function keptDeletions(files: string[], dirs: Set<string>): string[] {
  const inside = (p: string): boolean => {
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) if (dirs.has(p.slice(0, i))) return true;
    return false;
  };
  return [...[...dirs].filter((d) => !inside(d)).map((d) => `${d}/`), ...files.filter((f) => !inside(f))].sort();
}

/**
 * Writes what `snapshot` holds beyond the host directory `dir` into `dir` (memory layout, `.git/` and caches
 * excluded), then its hard-link groups and directories (`applyStructure`; with `check`, only listed). When the
 * tree the run started from is known (`runBase`), only the run's changes are written: a host file or empty
 * directory that tree lacks is the user's and kept (`keptHost`), as is a host file the user changed and the run did
 * not (`keptEdits`); a path both changed throws `MnemaraError('HOST_CHANGED')` (exit 2) unless `force`. Without
 * it, `HOST_CHANGED` when `dir` was written after the first run it does not hold started (`unchangedSince`, with
 * `lastApply`) and `force` is not set, naming what changed. `GIT_MISSING` without git; `APPLY_FAILED` when
 * `git apply` refuses (nothing is written then).
 */
export async function applyToHost(
  store: AnyStore,
  snapshot: string,
  dir: string,
  options: PatchOptions & {
    force?: boolean;
    check?: boolean;
    lastApply?: { rolloutIds: string[]; at: number } | null;
    /** The paths an earlier apply into `dir` undid, as it left them (`onUndone`): not the user's changes. */
    undone?: UndoneStamp[];
    /** Called when a write failed and was undone whole after the host-changed guard passed unforced. */
    onUndone?: (stamps: UndoneStamp[]) => Promise<void>;
  },
): Promise<ApplyResult> {
  const manifest = await store.get(snapshot);
  const left = patchFilter(options);
  // Each tree is read once and the patch made once (a real tree with node_modules: seconds per walk).
  const tree = await store.tree(snapshot, { hashContent: true });
  const mine = treeFileStates(tree, left);
  const host = await readHostTree(dir, left);
  const hostSide = { side: { dir }, files: host.files };
  const snapSide = { side: { snapshot, tree }, files: mine.files };
  const diff = await compareSides(hostSide, snapSide);
  // New-user trial 28 F0: the patch is host against snapshot, so every host file the snapshot lacks was "removed",
  // also the ones written after the last apply, before a run that started from the lineage head (not from this
  // directory) and never saw them; and every file the user deleted was "added". A path is the run's to delete,
  // overwrite or write back only as it differs from its start.
  const baseId = await runBase(store, manifest, options.lastApply);
  const base = baseId === null ? null : treeFileStates(await store.tree(baseId, { hashContent: true }), left);
  const scope = base ? await scopeToBase(dir, diff, mine.files, base.files) : null;
  if (scope?.conflicts.length && !options.force) {
    const c = scope.conflicts.map(quoteName);
    throw new MnemaraError('HOST_CHANGED', `${dir} and the run both changed ${c.length} file(s) since the snapshot the run started from (${baseId}): ${c.slice(0, 5).join(', ')}${c.length > 5 ? ', …' : ''}`, {
      hint: `Applying would overwrite, delete or write back over your version (or your deletion). Look at the patch (mnemara snapshot patch ${snapshot} -w ${dir}), then pass --force to apply it anyway, or commit/stash your changes and use git apply --3way on the patch.`,
    });
  }
  const kept = new Set([...(scope?.keptHost ?? []), ...(scope?.keptEdits ?? []), ...(scope?.keptDeleted ?? [])]);
  for (const p of kept) {
    host.files.delete(p);
    mine.files.delete(p);
  }
  const patch = await patchOf(store, hostSide, snapSide, { binary: true });
  const result: ApplyResult = { snapshot, dir, added: patch.added, removed: patch.removed, changed: patch.changed, applied: false };
  if (scope?.keptHost.length) result.keptHost = scope.keptHost;
  if (scope?.keptEdits.length) result.keptEdits = scope.keptEdits;
  // Hard links and empty directories, which a git patch does not carry (new-user trial 27: apply dropped both).
  // A name kept as the user's is no member of a group to link (linking it would undo the user's edit or deletion).
  const shape = snapshotShape(tree, left);
  shape.groups = shape.groups.map((g) => g.filter((p) => !kept.has(p))).filter((g) => g.length > 1);
  if (base) {
    // A directory the user removed that the run left alone stays removed, as a deleted file does.
    const gone = removedDirs(shape, base.dirs, host.shape.dirs, [...patch.added, ...patch.changed]);
    for (const d of gone) {
      shape.dirs.delete(d);
      shape.emptyDirs.delete(d);
    }
    const deleted = keptDeletions(scope?.keptDeleted ?? [], gone);
    if (deleted.length) result.keptDeleted = deleted;
  }
  const plan = planStructure(host.shape, shape, new Set([...patch.added, ...patch.changed, ...patch.removed]));
  if (base) {
    // A host directory the snapshot lacks is the run's to remove only when the run started with it.
    plan.dirsRemoved = plan.dirsRemoved.filter((d) => base.dirs.has(d));
    for (const d of [...plan.host.dirs]) if (!shape.dirs.has(d) && !base.dirs.has(d)) plan.host.dirs.delete(d);
  }
  // Nothing to write (applied before, or never changed): the host's newer files are no reason to refuse (trial 21
  // F1: a second apply blamed "your changes" on the files the first one wrote).
  if (patch.bytes.length === 0 && !hasStructureChanges(plan)) return result;
  const outside = linksOutside(patch.bytes.toString('latin1'));
  if (outside.length) result.linksOutside = outside;
  // Whether the host-changed guard ran and found nothing: only then is an undone write's own trace worth noting.
  let guarded = false;
  if (!options.force && !base) {
    const since = unchangedSince(manifest.rolloutIds, options.lastApply);
    if (since === null) {
      throw new MnemaraError('HOST_CHANGED', `snapshot ${snapshot} names no run, so whether ${dir} changed since cannot be told`, {
        hint: 'Pass --force to apply it anyway, or look at the patch first: mnemara snapshot patch SNAPSHOT -w DIR.',
      });
    }
    const changed = changedSince(host.stamps, since, options.undone);
    if (changed.length) {
      throw new MnemaraError('HOST_CHANGED', `${dir} changed after the run started (${new Date(since).toISOString()}): ${changed.slice(0, 5).map(quoteName).join(', ')}${changed.length > 5 ? ', …' : ''}`, {
        hint: `Applying would overwrite those changes. Look at the patch (mnemara snapshot patch ${snapshot} -w ${dir}), then pass --force to apply it anyway, or commit/stash your changes and use git apply --3way on the patch.`,
      });
    }
    guarded = true;
  }
  // Empty directories where the patch writes a file (trial 28 F1: an empty tree a/b/c replaced by a file `a`):
  // git apply cannot write the file over them, so they are removed first. One that holds files apply leaves alone
  // stops the apply, and --check says so.
  const addedSet = new Set(patch.added);
  const inTheWay = [...plan.host.dirs].filter((d) => !shape.dirs.has(d) && d.split('/').some((_, i, segs) => addedSet.has(segs.slice(0, i + 1).join('/'))));
  const blocking = inTheWay.filter((d) => !plan.host.emptyDirs.has(d));
  if (blocking.length) {
    throw new MnemaraError('APPLY_FAILED', `the snapshot has a file where ${dir} has the directory ${blocking.map((d) => quoteName(`${d}/`)).join(', ')}, which holds files apply leaves alone (ignored or memory files); nothing was written`, {
      hint: `Move those files away (or remove the directory), then apply again. Look at the patch: mnemara snapshot patch ${snapshot} -w ${dir}.`,
    });
  }
  if (options.check) {
    if (patch.bytes.length > 0) await gitApply(snapshot, dir, patch.bytes, true);
    return withStructure(result, plan, kept);
  }
  if (patch.bytes.length > 0) {
    // All or nothing: what git apply writes before a write fails is put back (apply-rollback.ts).
    const backup = await backupForApply(dir, [...patch.removed, ...patch.changed], patch.added, inTheWay);
    try {
      for (const d of [...inTheWay].sort((a, b) => b.split('/').length - a.split('/').length)) await rmdir(fsPath(join(dir, d)));
      await gitApply(snapshot, dir, patch.bytes, false);
    } catch (err) {
      const { undone, left } = await rollback(backup);
      // The undo cannot set ctimes back: without a note the retry's guard took its traces for the user's changes.
      if (left.length === 0 && guarded && options.onUndone) await options.onUndone(await undoneStamps(backup)).catch(() => undefined);
      const why = err instanceof MnemaraError ? err.message.replace(/^git apply refused the patch, nothing was written: /, '') : String((err as Error).message ?? err);
      if (left.length) {
        throw new MnemaraError('APPLY_FAILED', `git apply failed while writing (${why}), and putting ${dir} back as it was failed too: ${left.join('; ')}`, {
          hint: `The saved copies of the files it had changed or removed are in ${backup.root}; it is kept. Put them back by hand, then remove it.`,
          cause: err,
        });
      }
      if (undone > 0) {
        throw new MnemaraError('APPLY_FAILED', `git apply failed while writing, and what it had written was undone: ${dir} is as it was, nothing was written: ${why}`, {
          hint: `Look at the patch (mnemara snapshot patch ${snapshot} -w ${dir}); --force does not help here.`,
          cause: err,
        });
      }
      throw err;
    }
    await dropBackup(backup);
  }
  result.applied = true;
  const done = await applyStructure(dir, shape, left, plan);
  // The empty directories removed to make room for a file are removed directories too (--check listed them).
  done.dirsRemoved = [...new Set([...done.dirsRemoved, ...inTheWay.filter((d) => plan.dirsRemoved.includes(d))])].sort();
  return withStructure(result, done, kept);
}

/**
 * `result` with the structure changes that hold anything (so a plain apply's JSON keeps its old shape). A
 * directory kept because it holds files kept as the user's (`kept`) is no warning.
 */
function withStructure(result: ApplyResult, c: StructureChanges, kept: Set<string> = new Set()): ApplyResult {
  c.warnings = c.warnings.filter((w) => !(w.to === undefined && /^directory kept/.test(w.message) && [...kept].some((k) => k.startsWith(`${w.path}/`))));
  const keys = ['linked', 'unlinked', 'dirsAdded', 'dirsRemoved', 'dirModes', 'warnings'] as const;
  return Object.assign(result, Object.fromEntries(keys.filter((k) => c[k].length > 0).map((k) => [k, c[k]])));
}

/** `git apply` (with `check`: `--check`) of `bytes` in `dir`; throws `GIT_MISSING` or `APPLY_FAILED`. */
async function gitApply(snapshot: string, dir: string, bytes: Buffer, check: boolean): Promise<void> {
  const args = ['apply', '--whitespace=nowarn', ...(check ? ['--check'] : [])];
  // The ceiling keeps git from taking a repository above `dir` as the root the patch's paths are relative to.
  const r = await execa('git', args, {
    cwd: dir,
    input: bytes,
    reject: false,
    env: { GIT_CEILING_DIRECTORIES: dirname(dir), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  if (r.exitCode === undefined) {
    throw new MnemaraError('GIT_MISSING', 'git could not be run; changes are applied by `git apply`', {
      hint: "Install git (apt-get install git, or your system's package), then run the command again.",
    });
  }
  if (r.exitCode !== 0) {
    throw new MnemaraError('APPLY_FAILED', `git apply refused the patch, nothing was written: ${gitStderr(r.stderr).slice(0, 800)}`, {
      hint: `Look at the patch (mnemara snapshot patch ${snapshot} -w ${dir}); --force does not help here.`,
    });
  }
}
