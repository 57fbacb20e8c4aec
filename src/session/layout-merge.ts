import { createHash } from 'node:crypto';
import { copyFile, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { mergeMemoryMd } from '../memory/hand-merge.js';
import { unionMerge } from './text-union.js';

/** What a three-way merge of two memory layouts did, by relative path. */
export interface LayoutMergeReport {
  /** Files taken from theirs (new there, or changed only there, or deleted only there). */
  fromTheirs: string[];
  /**
   * Files both sides changed differently. MEMORY.md got both sides' entry edits; other files phase 2 rebuilds
   * went to theirs; notes got both sides' lines (`merged`) or, when not text, keep both files (ours renamed).
   */
  conflicts: string[];
  /** Of `conflicts`, the files that now hold both sides' changes in one file (MEMORY.md, text notes). */
  merged: string[];
}

/** A file's identity for comparison: its content digest, or its link target. `undefined` = absent. */
async function fingerprint(path: string): Promise<string | undefined> {
  const st = await lstat(path).catch(() => undefined);
  if (!st) return undefined;
  if (st.isSymbolicLink()) return `link:${await readlink(path)}`;
  if (!st.isFile()) return undefined;
  return `file:${createHash('sha256').update(await readFile(path)).digest('hex')}`;
}

/** Relative paths of the files and links under `root/<dirs>`. */
async function listFiles(root: string, dirs: string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() || e.isSymbolicLink()) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  for (const d of dirs) await walk(join(root, d));
  return out;
}

async function place(from: string, to: string): Promise<void> {
  await rm(to, { force: true });
  await mkdir(dirname(to), { recursive: true });
  const st = await lstat(from);
  if (st.isSymbolicLink()) await symlink(await readlink(from), to);
  else await copyFile(from, to);
}

/**
 * The files of a memory layout under `memoriesDir` that the pipeline writes (MEMORY.md, memory_summary.md, the
 * consolidation state, per-rollout raw memories and rollout summaries), as the `rebuilt` predicate of
 * `mergeLayouts`: on a conflict they are not kept twice (MEMORY.md is merged by entries, the rest rebuilt).
 */
export function pipelineFiles(memoriesDir: string): (rel: string) => boolean {
  const m = memoriesDir;
  return (rel) =>
    rel === `${m}/MEMORY.md` ||
    rel === `${m}/memory_summary.md` ||
    rel === `${m}/.state.json` ||
    rel.startsWith(`${m}/raw_memories/`) ||
    rel.startsWith(`${m}/rollout_summaries/`);
}

/**
 * Three-way merge of memory layouts, written into `ours` (a host directory holding our layout).
 * `theirs` holds the layout of a head another session published; `base` (or `null` = empty) the layout both
 * started from. Per file: unchanged on one side → the other side's version wins (including deletion);
 * changed the same way → kept. Changed differently on both sides: `memoryMd` gets both sides' entry edits
 * (`mergeMemoryMd`: a bullet our run or its agent added has no raw memory to come back from, so taking theirs lost
 * it when the head moved after our consolidation — new-user trial 27 F1); any other file in `rebuilt`
 * (memory_summary.md, the consolidation state, per-rollout artifacts) takes theirs, because the pipeline
 * rebuilds it; a text note gets both sides' lines (`unionMerge`); any other file keeps theirs at its path and
 * ours beside it as `<name>.ours-<tag>`, so no lesson or note of either side is lost. Transcripts and
 * per-rollout files never collide (rollout ids are unique).
 */
export async function mergeLayouts(options: {
  ours: string;
  theirs: string;
  base: string | null;
  /** The layout's folders, relative (e.g. `['memories', 'sessions']`). */
  dirs: string[];
  /** Relative path of MEMORY.md (e.g. `memories/MEMORY.md`): merged entry by entry on a conflict. */
  memoryMd?: string;
  /** Relative paths phase 1 or phase 2 regenerate (given as a list or a predicate). */
  rebuilt: string[] | ((rel: string) => boolean);
  /** Suffix for our copy of a conflicting file, e.g. our rollout id. */
  tag: string;
  /**
   * A conflicting file (not `rebuilt`) keeps ours at its path and theirs beside it as `<name>.from-<tag>`: for
   * adopting an older, orphaned layout into a newer one (`orphan-notes.ts`), where ours is the current head's.
   */
  oursStays?: boolean;
}): Promise<LayoutMergeReport> {
  const { ours, theirs, base, dirs, tag } = options;
  const rebuilt = typeof options.rebuilt === 'function' ? options.rebuilt : (rel: string) => (options.rebuilt as string[]).includes(rel);
  const paths = new Set([
    ...(await listFiles(ours, dirs)),
    ...(await listFiles(theirs, dirs)),
    ...(base ? await listFiles(base, dirs) : []),
  ]);
  const report: LayoutMergeReport = { fromTheirs: [], conflicts: [], merged: [] };
  for (const rel of [...paths].sort()) {
    const [o, t, b] = await Promise.all([
      fingerprint(join(ours, rel)),
      fingerprint(join(theirs, rel)),
      base ? fingerprint(join(base, rel)) : Promise.resolve(undefined),
    ]);
    if (o === t || t === b) continue; // same on both sides, or only we changed it: ours stands
    if (o === b) {
      // Only they changed it: take theirs (a deletion too).
      if (t === undefined) await rm(join(ours, rel), { force: true });
      else await place(join(theirs, rel), join(ours, rel));
      report.fromTheirs.push(rel);
      continue;
    }
    report.conflicts.push(rel);
    if (t === undefined) continue; // they deleted what we changed: keep ours, nothing is lost
    if (rel === options.memoryMd && o?.startsWith('file:') && t.startsWith('file:')) {
      const text = async (root: string | null): Promise<string | null> => (root ? readFile(join(root, rel), 'utf8').catch(() => null) : null);
      const mergedMd = mergeMemoryMd(await text(base), await text(ours), await text(theirs));
      if (mergedMd !== null) {
        await writeFile(join(ours, rel), mergedMd);
        report.merged.push(rel);
        continue;
      }
    }
    if (!rebuilt(rel) && o?.startsWith('file:') && t.startsWith('file:')) {
      const union = await unionMerge(base ? join(base, rel) : null, join(ours, rel), join(theirs, rel));
      if (union !== null) {
        await writeFile(join(ours, rel), union);
        report.merged.push(rel);
        continue;
      }
    }
    if (options.oursStays && !rebuilt(rel) && o !== undefined) {
      await place(join(theirs, rel), join(ours, `${rel}.from-${tag}`));
      continue;
    }
    if (!rebuilt(rel) && o !== undefined) await place(join(ours, rel), join(ours, `${rel}.ours-${tag}`));
    await place(join(theirs, rel), join(ours, rel));
  }
  return report;
}
