import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { MemoryConfigSchema } from '../config/memory.js';
import { noProgress } from '../config/progress.js';
import { detectImporter, openSource, storeImport, supportedFormats, type ImportStats, type ImportedRollout } from '../transcript/importers/index.js';
import { emptyStats } from '../transcript/importers/types.js';
import { parseRawMemories } from './artifacts.js';
import { fileSha256, loadImports, saveImports, walkPaths, type Candidate, type ImportsState } from './learn-files.js';
import { writeSdkMemoryArtifacts } from './learn-sdk-memory.js';
import { memoryPaths, type MemoryPaths } from './layout.js';
import { withMemoryLock } from './lock.js';
import { runMemoryPipeline, type MemoryPipelineOptions, type MemoryPipelineResult } from './pipeline.js';
import { redactDeep } from './redact.js';
import { continuesTranscript, withRolloutId } from './learn-diverged.js';
import { loadState, saveState } from './state.js';

/** What learning one rollout did: `new`, `grown` (stored again, longer; extracted again), `same` (no-op). */
export interface LearnedRollout {
  rolloutId: string;
  status: 'new' | 'grown' | 'same';
  records: number;
  task: string;
  /** Raw memories phase 1 wrote for it (null on `--dry-run` or for a `same` rollout). */
  lessons: number | null;
  /**
   * The rollout id a different stored transcript already has (same session id, records that do not continue it):
   * this one was stored beside it as `<id>-<sha256 prefix>` instead of replacing it.
   */
  sharedIdWith?: string;
  /**
   * Lessons of a foreign memory (`agents-sdk-memory`) left out because they tell to fetch and run code, send
   * data away, leave the sandbox or change where requests go; absent for transcripts (phase 1 filters those).
   */
  injected?: number;
}

/** What happened to one file. `unchanged` = this exact content was learned before (no-op). */
export interface LearnedFile {
  path: string;
  /** Importer key (`codex`, `claude-code` …), absent when skipped before detection. */
  format?: string;
  status: 'learned' | 'unchanged' | 'skipped';
  /** Why a file was skipped. */
  reason?: string;
  rollouts: LearnedRollout[];
  stats: ImportStats;
}

/** One row of the per-format table. */
export interface FormatRow {
  format: string;
  files: number;
  records: number;
  rollouts: number;
  lessons: number;
  skipped: number;
  unknown: Record<string, number>;
  damaged: Record<string, number>;
  recovered: number;
  surrogates: number;
}

export interface LearnReport {
  files: LearnedFile[];
  formats: FormatRow[];
  /** Skipped files by reason. */
  skipped: Record<string, number>;
  /** Lessons left out as injected instructions, over all rollouts (see {@link LearnedRollout.injected}). */
  injected: number;
  /** The pipeline's result; null on `--dry-run` or when nothing new was stored. */
  pipeline: MemoryPipelineResult | null;
  dryRun: boolean;
}

export interface LearnOptions extends Omit<MemoryPipelineOptions, 'workspaceDir'> {
  /** Import and count, store nothing, run no pipeline. */
  dryRun?: boolean;
}

const DEFAULTS: Omit<MemoryPipelineOptions, 'workspaceDir'> = { extractor: 'deterministic', config: MemoryConfigSchema.parse({}) };

/**
 * `mnemara learn PATH…`: every transcript under `paths` (files, and directories walked recursively), in any
 * supported format (detected by content), is imported streaming, redacted and stored as
 * `sessions/<rollout-id>.jsonl` of `workspaceDir`'s memory layout; then the memory pipeline runs once.
 * Incremental and idempotent: a file whose exact content was learned before (`memories/.imports.json`, by
 * sha256) is a no-op; a rollout whose stored transcript is byte-identical is left alone; a grown file (same
 * rollout id, more records) replaces its transcript and is extracted again, so only its new lessons are added.
 * Files in no supported format are skipped with the reason (format refusal) — except when the only path given
 * is that one file, which is refused. Progress: `learn` events per file, then the pipeline's.
 * @throws MnemaraError `NOT_FOUND` (a path that does not exist), `INVALID_INPUT` (a single file in no supported
 *   format), `BUSY` (memory lock), and whatever {@link runMemoryPipeline} throws.
 */
export async function learnPaths(paths: string[], workspaceDir: string, options: LearnOptions = DEFAULTS): Promise<LearnReport> {
  const onProgress = options.onProgress ?? noProgress;
  const layout = options.layout ?? options.config.layout ?? { memoriesDir: 'memories', sessionsDir: 'sessions' };
  const mp = memoryPaths(workspaceDir, layout);
  const candidates: Candidate[] = [];
  for await (const c of walkPaths(paths, [mp.memoriesDir, mp.sessionsDir])) candidates.push(c);
  const first = candidates[0];
  const single = paths.length === 1 && candidates.length === 1 && first !== undefined && 'explicit' in first && first.explicit;
  onProgress({ step: 'learn', phase: 'start', message: `${candidates.length} file(s)`, done: 0, total: candidates.length, unit: 'files' });

  // Formats first, outside the lock: a call that finds no transcript at all creates nothing.
  const detected = new Map<string, Awaited<ReturnType<typeof detectImporter>> | Error>();
  for (const c of candidates) if ('explicit' in c) detected.set(c.path, await detectImporter(c.path).catch((err: Error) => err));
  if (![...detected.values()].some((d) => !(d instanceof Error))) {
    const only = [...detected.values()][0];
    if (single && only instanceof Error) throw only;
    const reasons = [...detected.values()].map((e) => (e as Error).message.replace(/^.*? is /, ''));
    throw new MnemaraError('INVALID_INPUT', `no transcript found under ${paths.join(', ')} (${candidates.length} file(s)${reasons.length ? `; e.g. ${reasons[0]}` : ''})`, {
      hint: `Pass transcript files or directories holding them. Formats: ${supportedFormats()}.`,
    });
  }
  const files: LearnedFile[] = [];
  const work = async (): Promise<void> => {
    if (!options.dryRun) await mkdir(mp.sessionsDir, { recursive: true });
    const imports = await loadImports(importsFile(mp));
    for (const [i, c] of candidates.entries()) {
      if ('skip' in c) files.push({ path: c.path, status: 'skipped', reason: c.skip, rollouts: [], stats: emptyStats() });
      else {
        try {
          const d = detected.get(c.path);
          if (d instanceof Error) throw d;
          files.push(await learnFile(c.path, mp, imports, Boolean(options.dryRun), d));
        } catch (err) {
          if (single || !(err instanceof MnemaraError) || !['INVALID_INPUT', 'NOT_FOUND'].includes(err.code)) throw err;
          files.push({ path: c.path, status: 'skipped', reason: err.message.replace(`${c.path} `, ''), rollouts: [], stats: emptyStats() });
        }
      }
      onProgress({ step: 'learn', phase: 'progress', done: i + 1, total: candidates.length, unit: 'files', message: c.path });
    }
    if (!options.dryRun) await saveImports(importsFile(mp), imports);
  };
  if (options.dryRun) await work();
  else await withMemoryLock(join(mp.memoriesDir, '.lock'), work, options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {});
  onProgress({ step: 'learn', phase: 'end', message: `${files.filter((f) => f.status === 'learned').length} learned, ${files.filter((f) => f.status === 'unchanged').length} unchanged, ${files.filter((f) => f.status === 'skipped').length} skipped` });

  const changed = files.some((f) => f.rollouts.some((r) => r.status !== 'same'));
  let pipeline: MemoryPipelineResult | null = null;
  if (!options.dryRun && (changed || files.some((f) => f.status !== 'skipped'))) {
    pipeline = await runMemoryPipeline({ ...options, workspaceDir });
    for (const f of files) for (const r of f.rollouts) if (r.status !== 'same') r.lessons = await lessonsOf(mp, r.rolloutId);
  }
  const injected = files.reduce((n, f) => n + f.rollouts.reduce((k, r) => k + (r.injected ?? 0), 0), 0);
  return { files, formats: table(files), skipped: skippedReasons(files), injected, pipeline, dryRun: Boolean(options.dryRun) };
}

function importsFile(mp: MemoryPaths): string {
  return join(mp.memoriesDir, '.imports.json');
}

async function learnFile(path: string, mp: MemoryPaths, imports: ImportsState, dryRun: boolean, found?: Awaited<ReturnType<typeof detectImporter>>): Promise<LearnedFile> {
  const { key, importer } = found ?? (await detectImporter(path));
  const sha = await fileSha256(path);
  const known = imports.files[sha];
  const stats = emptyStats();
  if (known && !dryRun) {
    return { path, format: key, status: 'unchanged', rollouts: known.rollouts.map((rolloutId) => ({ rolloutId, status: 'same', records: 0, task: '', lessons: null })), stats };
  }
  const src = await openSource(path, stats);
  const dir = dryRun ? await mkdtemp(join(tmpdir(), 'mnemara-learn-')) : mp.sessionsDir;
  try {
    const out = await storeImport(importer, src, dir, { transform: (r) => redactDeep(r), stats });
    const rollouts: LearnedRollout[] = [];
    for (const r of out.rollouts) rollouts.push(await place(r, mp, dryRun, key));
    if (!dryRun) imports.files[sha] = { path, format: key, rollouts: rollouts.map((r) => r.rolloutId), at: new Date().toISOString() };
    return { path, format: key, status: 'learned', rollouts, stats: out.stats };
  } finally {
    if (dryRun) await rm(dir, { recursive: true, force: true });
  }
}

/** Moves an imported rollout into place (or compares it, on a dry run); a changed one is queued for extraction again. */
async function place(imported: ImportedRollout, mp: MemoryPaths, dryRun: boolean, key: string): Promise<LearnedRollout> {
  let r = imported;
  let target = mp.transcript(r.rolloutId);
  let existing = await fileSha256(target).catch(() => null);
  let sharedIdWith: string | undefined;
  if (existing !== null && existing !== r.sha256 && !(await continuesTranscript(target, r.file))) {
    // Another transcript under the same session id: stored beside it, under an id of its own content.
    sharedIdWith = r.rolloutId;
    r = await withRolloutId(r, `${r.rolloutId}-${r.sha256.slice(0, 10)}`);
    target = mp.transcript(r.rolloutId);
    existing = await fileSha256(target).catch(() => null);
  }
  const status: LearnedRollout['status'] = existing === null ? 'new' : existing === r.sha256 ? 'same' : 'grown';
  const out: LearnedRollout = { rolloutId: r.rolloutId, status, records: r.records, task: r.task, lessons: null, ...(sharedIdWith ? { sharedIdWith } : {}) };
  if (dryRun) return out;
  if (status === 'same') {
    await rm(r.file, { force: true });
    return out;
  }
  if (status === 'grown') {
    // The old artifacts would be adopted as they are; the rollout must be extracted again from its new transcript.
    await rm(mp.rawMemories(r.rolloutId), { force: true });
    await rm(mp.rolloutSummary(r.rolloutId), { force: true });
    const state = await loadState(mp.stateFile);
    if (state.rollouts[r.rolloutId]) {
      delete state.rollouts[r.rolloutId];
      await saveState(mp.stateFile, state);
    }
  }
  await rename(r.file, target);
  if (key === 'agents-sdk-memory') out.injected = (await writeSdkMemoryArtifacts(mp, r.rolloutId)).injected;
  return out;
}

async function lessonsOf(mp: MemoryPaths, rolloutId: string): Promise<number | null> {
  const text = await readFile(mp.rawMemories(rolloutId), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return parseRawMemories(text).memories.length;
  } catch {
    return null;
  }
}

function table(files: LearnedFile[]): FormatRow[] {
  const rows = new Map<string, FormatRow>();
  for (const f of files) {
    const key = f.format ?? '(not a transcript)';
    const row = rows.get(key) ?? { format: key, files: 0, records: 0, rollouts: 0, lessons: 0, skipped: 0, unknown: {}, damaged: {}, recovered: 0, surrogates: 0 };
    rows.set(key, row);
    row.files += 1;
    if (f.status === 'skipped') row.skipped += 1;
    row.records += f.stats.records;
    row.rollouts += f.rollouts.length;
    row.lessons += f.rollouts.reduce((n, r) => n + (r.lessons ?? 0), 0);
    for (const [k, n] of Object.entries(f.stats.unknown)) row.unknown[k] = (row.unknown[k] ?? 0) + n;
    for (const [k, n] of Object.entries(f.stats.damaged)) row.damaged[k] = (row.damaged[k] ?? 0) + n;
    row.recovered += f.stats.recovered;
    row.surrogates += f.stats.surrogates;
  }
  return [...rows.values()].sort((a, b) => a.format.localeCompare(b.format));
}

function skippedReasons(files: LearnedFile[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of files) {
    if (f.status !== 'skipped' || !f.reason) continue;
    const kind = skipKind(f.reason);
    out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}

/** The kind of a skip reason, as `LearnReport.skipped` counts it ("not a transcript mnemara can read"). */
export function skipKind(reason: string): string {
  return reason.replace(/: it looks like.*$/s, '').replace(/^is /, '');
}

/** What {@link learnTranscript} returns: the pipeline's result and the one rollout learned. */
export interface LearnResult extends MemoryPipelineResult {
  rolloutId: string;
  /** Importer key of the file (`anthropic-messages`, `claude-code` …). */
  format: string;
  /** `sessions/<id>.jsonl`, relative to the workspace. */
  transcript: string;
  /** Damage stubs kept for lines that could not be read. */
  skippedLines: number;
  /** The same transcript was learned before: nothing new was stored. */
  alreadyKnown: boolean;
  report: LearnReport;
}

const NOTHING: MemoryPipelineResult = { extracted: [], pending: [], consolidated: false, added: [], changed: [], removed: [], forgottenRollouts: [], modelCalls: 0, phase2Error: null };

/**
 * {@link learnPaths} on one file, reported as its (first) rollout. Same errors; a single file in no
 * supported format is refused with `INVALID_INPUT`.
 */
export async function learnTranscript(file: string, workspaceDir: string, options: LearnOptions = DEFAULTS): Promise<LearnResult> {
  const report = await learnPaths([resolve(file)], workspaceDir, options);
  const f = report.files[0];
  const r = f?.rollouts[0];
  if (!f || !r) throw new MnemaraError('INVALID_INPUT', `${file} holds no rollout`, { hint: f?.reason ?? 'The file has no records mnemara can use.' });
  const layout = options.layout ?? options.config.layout ?? { memoriesDir: 'memories', sessionsDir: 'sessions' };
  return {
    ...(report.pipeline ?? NOTHING),
    rolloutId: r.rolloutId,
    format: f.format ?? 'unknown',
    transcript: `${layout.sessionsDir}/${r.rolloutId}.jsonl`,
    skippedLines: Object.values(f.stats.damaged).reduce((a, b) => a + b, 0),
    alreadyKnown: f.status === 'unchanged' || r.status === 'same',
    report,
  };
}
