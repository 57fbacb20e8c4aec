/**
 * Bringing a run's work home: the patch from the host directory to a snapshot (see patch.ts), applied to the
 * host with `git apply` (all or nothing: git checks every hunk before it writes). A run never changes the host
 * directory, so the host should still be what the first run of the lineage copied; when something in it was
 * written after that run started, applying would overwrite the user's work, and `applyToHost` refuses unless
 * forced. Hard links and empty directories, which the patch cannot carry, are made after it (`apply-structure.ts`).
 */
import { lstat, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { MnemaraError } from '../config/errors.js';
import { gitStderr, makePatch, patchFilter, type Patch, type PatchOptions } from './patch.js';
import { backupForApply, dropBackup, rollback } from './apply-rollback.js';
import { displayName, fsPath } from './names.js';
import { applyStructure, hasStructureChanges, planStructure, snapshotShape, type StructureChanges } from './apply-structure.js';
import type { AnyStore } from './store/open.js';
import { walkTree } from './walk.js';

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
 * Paths under `dir` (the patch's filters apply) written, created, removed or chmod-ed since `sinceMs`: a file's
 * or symlink's own mtime/ctime, or a directory's (which moves when an entry in it is added, removed or renamed).
 * At most `limit` paths.
 */
export async function changedSince(dir: string, sinceMs: number, options: PatchOptions, limit = 20): Promise<string[]> {
  const left = patchFilter(options);
  const out: string[] = [];
  const root = await lstat(dir);
  if (Math.max(root.mtimeMs, root.ctimeMs) > sinceMs) out.push('.');
  for await (const e of walkTree(dir, [], { ignore: left, onSkip: () => undefined })) {
    if (Math.max(e.stats.mtimeMs, e.stats.ctimeMs) > sinceMs) out.push(e.type === 'dir' ? `${e.path}/` : e.path);
    if (out.length >= limit) break;
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
 * Writes what `snapshot` holds beyond the host directory `dir` into `dir` (memory layout, `.git/` and caches
 * excluded), then its hard-link groups and directories (`applyStructure`; with `check`, only listed). Throws `MnemaraError('HOST_CHANGED')` (exit 2) when `dir` was written after the first run it does not
 * hold started (`unchangedSince`, with `lastApply`) and `force` is not set, naming what changed; `GIT_MISSING`
 * without git; `APPLY_FAILED` when `git apply` refuses (nothing is written then).
 */
export async function applyToHost(
  store: AnyStore,
  snapshot: string,
  dir: string,
  options: PatchOptions & { force?: boolean; check?: boolean; lastApply?: { rolloutIds: string[]; at: number } | null },
): Promise<ApplyResult> {
  const manifest = await store.get(snapshot);
  const tree = await store.tree(snapshot, { hashContent: true });
  const patch = await makePatch(store, { dir }, { snapshot, tree }, { ...options, binary: true });
  const result: ApplyResult = { snapshot, dir, added: patch.added, removed: patch.removed, changed: patch.changed, applied: false };
  // Hard links and empty directories, which a git patch does not carry (new-user trial 27: apply dropped both).
  const left = patchFilter(options);
  const shape = snapshotShape(tree, left);
  const plan = await planStructure(dir, shape, left, new Set([...patch.added, ...patch.changed, ...patch.removed]));
  // Nothing to write (applied before, or never changed): the host's newer files are no reason to refuse (trial 21
  // F1: a second apply blamed "your changes" on the files the first one wrote).
  if (patch.bytes.length === 0 && !hasStructureChanges(plan)) return result;
  const outside = linksOutside(patch.bytes.toString('latin1'));
  if (outside.length) result.linksOutside = outside;
  if (!options.force) {
    const since = unchangedSince(manifest.rolloutIds, options.lastApply);
    if (since === null) {
      throw new MnemaraError('HOST_CHANGED', `snapshot ${snapshot} names no run, so whether ${dir} changed since cannot be told`, {
        hint: 'Pass --force to apply it anyway, or look at the patch first: mnemara snapshot patch SNAPSHOT -w DIR.',
      });
    }
    const changed = await changedSince(dir, since, options);
    if (changed.length) {
      throw new MnemaraError('HOST_CHANGED', `${dir} changed after the run started (${new Date(since).toISOString()}): ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}`, {
        hint: `Applying would overwrite those changes. Look at the patch (mnemara snapshot patch ${snapshot} -w ${dir}), then pass --force to apply it anyway, or commit/stash your changes and use git apply --3way on the patch.`,
      });
    }
  }
  // Empty directories where the patch writes a file (trial 28 F1: an empty tree a/b/c replaced by a file `a`):
  // git apply cannot write the file over them, so they are removed first. One that holds files apply leaves alone
  // stops the apply, and --check says so.
  const addedSet = new Set(patch.added);
  const inTheWay = [...plan.host.dirs].filter((d) => !shape.dirs.has(d) && d.split('/').some((_, i, segs) => addedSet.has(segs.slice(0, i + 1).join('/'))));
  const blocking = inTheWay.filter((d) => !plan.host.emptyDirs.has(d));
  if (blocking.length) {
    throw new MnemaraError('APPLY_FAILED', `the snapshot has a file where ${dir} has the directory ${blocking.map((d) => `${displayName(d)}/`).join(', ')}, which holds files apply leaves alone (ignored or memory files); nothing was written`, {
      hint: `Move those files away (or remove the directory), then apply again. Look at the patch: mnemara snapshot patch ${snapshot} -w ${dir}.`,
    });
  }
  if (options.check) {
    if (patch.bytes.length > 0) await gitApply(snapshot, dir, patch.bytes, true);
    return withStructure(result, plan);
  }
  if (patch.bytes.length > 0) {
    // All or nothing: what git apply writes before a write fails is put back (apply-rollback.ts).
    const backup = await backupForApply(dir, [...patch.removed, ...patch.changed], patch.added, inTheWay);
    try {
      for (const d of [...inTheWay].sort((a, b) => b.split('/').length - a.split('/').length)) await rmdir(fsPath(join(dir, d)));
      await gitApply(snapshot, dir, patch.bytes, false);
    } catch (err) {
      const { undone, left } = await rollback(backup);
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
  return withStructure(result, done);
}

/** `result` with the structure changes that hold anything (so a plain apply's JSON keeps its old shape). */
function withStructure(result: ApplyResult, c: StructureChanges): ApplyResult {
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
