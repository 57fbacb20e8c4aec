import { readFile, stat, appendFile, mkdir } from 'node:fs/promises';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import type { MemoryLayout } from '../config/memory.js';
import { compileIgnore } from '../snapshot/ignore.js';

/** Absolute paths of one memory layout inside a workspace directory (DESIGN.md, "Memory layout"). */
export interface MemoryPaths {
  workspaceDir: string;
  /** `<ws>/memories` by default. */
  memoriesDir: string;
  /** `<ws>/sessions` by default: the transcripts `<rollout-id>.jsonl`. */
  sessionsDir: string;
  memoryMd: string;
  summaryMd: string;
  /** `memories/archive.md`: entries the caps pushed out of MEMORY.md, searchable and restorable (`archive.ts`). */
  archiveMd: string;
  rolloutSummariesDir: string;
  rawMemoriesDir: string;
  /** `memories/.state.json`: consolidation bookkeeping (see `state.ts`). */
  stateFile: string;
  rolloutSummary(rolloutId: string): string;
  rawMemories(rolloutId: string): string;
  transcript(rolloutId: string): string;
}

/** A rollout id becomes a file name; anything but `[A-Za-z0-9._-]` (or a leading dot) is refused. */
const ROLLOUT_ID_RE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Throws `MnemaraError('INVALID_INPUT')` unless `id` is safe to use as a file name. */
export function assertRolloutId(id: string): string {
  if (!ROLLOUT_ID_RE.test(id)) {
    throw new MnemaraError('INVALID_INPUT', `rollout id ${JSON.stringify(id.slice(0, 80))} is not usable as a file name`, {
      hint: 'Rollout ids may hold letters, digits, ".", "_" and "-" (at most 200 characters, no leading dot).',
    });
  }
  return id;
}

function checkRelative(option: string, value: string): string {
  const n = normalize(value);
  if (!value || isAbsolute(value) || n === '.' || n.startsWith('..') || n.split(sep).includes('..')) {
    throw new MnemaraError('INVALID_CONFIG', `memory.layout.${option} must be a relative folder inside the workspace, got ${JSON.stringify(value)}`, {
      hint: 'Use a path such as "memories" or "agents/reviewer/memories".',
    });
  }
  return n;
}

/**
 * Resolves a memory layout inside `workspaceDir`. Throws `MnemaraError('INVALID_CONFIG')` when a layout folder
 * is absolute or climbs out of the workspace. Creates nothing.
 */
export function memoryPaths(workspaceDir: string, layout: MemoryLayout = { memoriesDir: 'memories', sessionsDir: 'sessions' }): MemoryPaths {
  const ws = resolve(workspaceDir);
  const memoriesDir = join(ws, checkRelative('memoriesDir', layout.memoriesDir));
  const sessionsDir = join(ws, checkRelative('sessionsDir', layout.sessionsDir));
  const rolloutSummariesDir = join(memoriesDir, 'rollout_summaries');
  const rawMemoriesDir = join(memoriesDir, 'raw_memories');
  return {
    workspaceDir: ws,
    memoriesDir,
    sessionsDir,
    memoryMd: join(memoriesDir, 'MEMORY.md'),
    summaryMd: join(memoriesDir, 'memory_summary.md'),
    archiveMd: join(memoriesDir, 'archive.md'),
    rolloutSummariesDir,
    rawMemoriesDir,
    stateFile: join(memoriesDir, '.state.json'),
    rolloutSummary: (id) => join(rolloutSummariesDir, `${assertRolloutId(id)}.md`),
    rawMemories: (id) => join(rawMemoriesDir, `${assertRolloutId(id)}.md`),
    transcript: (id) => join(sessionsDir, `${assertRolloutId(id)}.jsonl`),
  };
}

/**
 * Resolves a workspace directory named by a person (`--workspace`) and checks that it is an existing directory,
 * so that a mistyped path is reported instead of silently getting (or showing) an empty memory.
 * @returns the absolute path.
 * @throws MnemaraError `NOT_FOUND` when nothing is at the path, `INVALID_INPUT` when it is not a directory.
 */
export async function existingWorkspaceDir(dir: string): Promise<string> {
  const abs = resolve(dir);
  const st = await stat(abs).catch(() => null);
  if (!st) {
    throw new MnemaraError('NOT_FOUND', `workspace ${abs} does not exist`, {
      hint: 'Pass --workspace DIR with the directory whose memory you mean (create it first for a new memory).',
    });
  }
  if (!st.isDirectory()) {
    throw new MnemaraError('INVALID_INPUT', `workspace ${abs} is not a directory`, { hint: 'Pass --workspace DIR with a directory.' });
  }
  return abs;
}

/**
 * The paths of a memory layout that mnemara alone writes (relative to the workspace, `/`-separated):
 * `MEMORY.md`, `memory_summary.md`, `archive.md` (entries the caps or an agent's supported edits moved out of
 * MEMORY.md: a forged one would come back with `memory restore`), `.state.json`, `.imports.json`,
 * `rollout_summaries/`, `raw_memories/` and the transcripts folder. Everything else under the memories folder is the agent's own (memory-tool notes). A session should
 * take these from the snapshot it started from, not from the sandbox the agent could write to.
 */
export function mnemaraOwnedPaths(layout: MemoryLayout = { memoriesDir: 'memories', sessionsDir: 'sessions' }): string[] {
  const mem = checkRelative('memoriesDir', layout.memoriesDir).split(sep).join('/');
  const ses = checkRelative('sessionsDir', layout.sessionsDir).split(sep).join('/');
  return [`${mem}/MEMORY.md`, `${mem}/memory_summary.md`, `${mem}/archive.md`, `${mem}/.state.json`, `${mem}/.imports.json`, `${mem}/rollout_summaries`, `${mem}/raw_memories`, ses];
}

/**
 * `ignore` (the `snapshot.ignore` patterns) with the memory layout's folders kept (`!/memories`, `!/sessions`,
 * appended, see `compileIgnore`): a pattern of a repository's config (`memories`, `*.md`) left the run's transcript
 * and MEMORY.md out of every snapshot, and the rollout was on the head in name only. Patterns a call adds after
 * these (a checkout that lacks the layout inherits it from the parent) still apply.
 *
 * A folder above a nested layout (`.mn/` of `.mn/memories`) that the patterns ignore is kept itself and its other
 * entries are ignored again (`!/.mn`, then a pattern for all below it): a walk prunes an ignored folder before it
 * reaches the kept one inside (trial 25: the run's transcript under `.mn/sessions` was in no workspace snapshot).
 */
export function keepLayoutInSnapshots(ignore: string[], layout: MemoryLayout = { memoriesDir: 'memories', sessionsDir: 'sessions' }): string[] {
  const dirs = [checkRelative('memoriesDir', layout.memoriesDir), checkRelative('sessionsDir', layout.sessionsDir)].map((d) => d.split(sep).join('/'));
  const out = [...ignore];
  for (const d of dirs) {
    const segs = d.split('/');
    for (let k = 1; k < segs.length; k++) {
      const above = segs.slice(0, k).join('/');
      if (compileIgnore(out)(above)) out.push(`!/${above}`, `/${above}/*/**`);
    }
    out.push(`!/${d}`);
  }
  return out;
}

/** `config.snapshot` with `keepLayoutInSnapshots` applied to its `ignore`: what a store that snapshots the layout is opened with. */
export function snapshotConfigKeepingLayout<T extends { ignore: string[] }>(config: { snapshot: T; memory: { layout: MemoryLayout } }): T {
  return { ...config.snapshot, ignore: keepLayoutInSnapshots(config.snapshot.ignore, config.memory.layout) };
}

/** The lines `.git/info/exclude` gets for a layout: anchored folder patterns such as `/memories/`. */
export function gitExcludeEntries(layout: MemoryLayout): string[] {
  return [layout.memoriesDir, layout.sessionsDir].map((d) => `/${checkRelative('layout', d).split(sep).join('/')}/`);
}

/**
 * In a git workspace (a `.git` directory at its root), appends the layout's folders to `.git/info/exclude`
 * so that they never show in `git status`. Idempotent; returns the lines added (empty when none were needed
 * or the workspace is not a git checkout). A `.git` file (worktree, submodule) is left alone.
 */
export async function excludeFromGit(workspaceDir: string, layout: MemoryLayout): Promise<string[]> {
  const gitDir = join(resolve(workspaceDir), '.git');
  const st = await stat(gitDir).catch(() => undefined);
  if (!st?.isDirectory()) return [];
  const file = join(gitDir, 'info', 'exclude');
  const current = await readFile(file, 'utf8').catch(() => '');
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = gitExcludeEntries(layout).filter((e) => !have.has(e));
  if (missing.length === 0) return [];
  await mkdir(join(gitDir, 'info'), { recursive: true });
  const prefix = current && !current.endsWith('\n') ? '\n' : '';
  await appendFile(file, `${prefix}# mnemara memory layout\n${missing.join('\n')}\n`);
  return missing;
}
