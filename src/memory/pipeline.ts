import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { ModelClient } from '../agent/client.js';
import { loadTranscriptBounded } from '../transcript/bounded.js';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import type { MemoryConfig, MemoryLayout } from '../config/memory.js';
import { noProgress, type OnProgress } from '../config/progress.js';
import { parseRawMemories, parseRolloutSummary, renderRawMemories, renderRolloutSummary } from './artifacts.js';
import { writeFileAtomic } from './atomic.js';
import { excludeFromGit, memoryPaths, type MemoryPaths } from './layout.js';
import { assertNoLayoutLinks } from './layout-links.js';
import { withMemoryLock } from './lock.js';
import { normalizeText, sha256 } from './normalize.js';
import { DEFAULT_CONTEXT_TOKENS, DETERMINISTIC_VERSION, TOO_LARGE_MARK, extractRollout } from './phase1/index.js';
import { emptyTranscriptExtraction } from './phase1/empty-transcript.js';
import { consolidate } from './phase2/index.js';
import { REDACTION_VERSION, redact, redactDeep } from './redact.js';
import { reRedactLayout, redactForeignMemoryFiles } from './redact-files.js';
import { loadState, saveState, type MemoryState } from './state.js';
import { tokenCounter } from './token-count.js';
import { judgeAgentEdits, type AgentMemoryEdits, type JudgedEdits, type RejectedEdit, type RetiredEntry } from './phase2/agent-proposals.js';
import { viewRollout } from './phase1/rollout.js';
import { countMemoryUse, memoryMdWrites, type MemoryUse } from './use.js';

/** Options of {@link runMemoryPipeline}. */
export interface MemoryPipelineOptions {
  /** Host directory holding the memory layout (a workspace, or a restored memory snapshot). */
  workspaceDir: string;
  /** Default: `config.layout`. */
  layout?: MemoryLayout;
  /** Both phases run with the model (`client` + `model` required) or deterministically (no network). */
  extractor: 'model' | 'deterministic';
  client?: ModelClient;
  model?: string;
  /** Model path: the model's context window in tokens (phase 1 budget); default 200,000. */
  contextTokens?: number;
  /** Model path: receive phase 1 answers as streams (SSE). */
  stream?: boolean;
  config: Pick<MemoryConfig, 'maxRawMemories' | 'memoryMdTokens' | 'summaryTokens'> & { layout?: MemoryLayout };
  /**
   * A run's edits of MEMORY.md (its start and its end in the sandbox): judged against that rollout's transcript
   * when it is extracted (`judgeAgentEdits`) — additions and supported corrections become its raw memories,
   * supported corrections and deletions retire the old entries, the rest is reported in `agentEdits.rejected`.
   */
  agentMemoryMd?: AgentMemoryEdits | AgentMemoryEdits[];
  /** Consolidate even when no raw memory changed. */
  forceConsolidation?: boolean;
  onProgress?: OnProgress;
  now?: () => Date;
  /** How long to wait (ms) for another pipeline holding `memories/.lock` before `BUSY`; default 30,000. */
  lockWaitMs?: number;
}

/** What one pipeline run did. Entry ids in `added`/`changed`/`removed`. */
export interface MemoryPipelineResult {
  /** Rollouts extracted by this run. */
  extracted: string[];
  /** Rollouts whose extraction failed (now or before): retried on the next run. */
  pending: Array<{ rolloutId: string; error: string }>;
  consolidated: boolean;
  added: string[];
  changed: string[];
  removed: string[];
  /** Entry ids the MEMORY.md cap moved to `memories/archive.md`, and those of them a person wrote (named in the summary line). */
  archived?: string[];
  archivedPersonal?: Array<{ id: string; text: string }>;
  /** Entries retired because a newer entry contradicts them (archived, tombstoned; issue 12). */
  superseded?: Array<{ id: string; stale: string; by: string }>;
  /** Rollouts that fell out of the newest N raw memories (files deleted). */
  forgottenRollouts: string[];
  /** Model calls of both phases. */
  modelCalls: number;
  /** What came of the run's own edits of MEMORY.md (`agentMemoryMd`), when it had any. */
  agentEdits?: { rolloutId: string; proposed: number; retired: Array<{ id: string; reason: 'corrected' | 'deleted'; personal: boolean }>; rejected: RejectedEdit[] };
  /** Phase 2's failure, when it failed: the previous MEMORY.md is still in place. */
  phase2Error: { code: string; message: string; hint?: string } | null;
}

const log = logger('memory.pipeline');

/** Rollout ids of `sessions/*.jsonl`, in id order (mnemara's ids sort by time). */
async function transcriptIds(paths: MemoryPaths): Promise<string[]> {
  const names = await readdir(paths.sessionsDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  return names
    .filter((n) => n.endsWith('.jsonl') && !n.startsWith('.'))
    .map((n) => n.slice(0, -'.jsonl'.length))
    .filter((id) => /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(id))
    .sort();
}

/** Both artifacts of a rollout exist and parse (e.g. merged in from another session's head): no need to extract again. */
async function adoptArtifacts(paths: MemoryPaths, id: string): Promise<{ time: string; producer: string; rawHash: string } | null> {
  try {
    const rawText = await readFile(paths.rawMemories(id), 'utf8');
    const { meta } = parseRawMemories(rawText, paths.rawMemories(id));
    parseRolloutSummary(await readFile(paths.rolloutSummary(id), 'utf8'), paths.rolloutSummary(id));
    return { time: meta.time, producer: meta.producer, rawHash: sha256(rawText) };
  } catch {
    return null;
  }
}

/** The model answered without the structured answer twice (`MODEL_OUTPUT_INVALID`): the callers' fallback covers it. */
const invalidAnswer = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'MODEL_OUTPUT_INVALID';

function nextSeq(state: MemoryState): number {
  return Object.values(state.rollouts).reduce((n, r) => Math.max(n, (r.seq ?? -1) + 1), 0);
}

function rel(paths: MemoryPaths, file: string): string {
  return relative(paths.workspaceDir, file).split(sep).join('/');
}

/** Phase 1 of one rollout, written atomically and redacted once more on the way to disk. */
async function extractOne(paths: MemoryPaths, id: string, options: MemoryPipelineOptions): Promise<{ time: string; producer: string; rawHash: string; calls: number; use: MemoryUse; memoryMdWrites: number[]; judged?: JudgedEdits }> {
  // Bounded: a transcript of any size is read in bounded memory (long outputs cut to head and tail).
  const { records, skipped } = await loadTranscriptBounded(paths.transcript(id));
  if (skipped.length) log.warn({ rolloutId: id, skipped: skipped.slice(0, 5) }, 'transcript lines skipped');
  const source = rel(paths, paths.transcript(id));
  // Nothing at all (not unreadable lines: a later version may read those): the record was lost, for good.
  const extraction = records.length === 0 && skipped.length === 0 ? emptyTranscriptExtraction(id, source, DETERMINISTIC_VERSION) : redactDeep(
    await extractRollout({
      records,
      rolloutId: id,
      transcriptPath: source,
      mode: options.extractor,
      ...(options.client ? { client: options.client } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.contextTokens ? { contextTokens: options.contextTokens } : {}),
      // Requests are counted by the endpoint when it can (count_tokens), so a part over the window is split before it is sent.
      ...(options.client ? { countTokens: tokenCounter(options.client) } : {}),
      ...(options.stream ? { stream: true } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    }),
  );
  const layout = options.layout ?? options.config.layout ?? { memoriesDir: 'memories', sessionsDir: 'sessions' };
  const writes = memoryMdWrites(records, layout);
  let judged: JudgedEdits | undefined;
  // Several rollouts can bring edits: the run's own and those of orphaned rollouts it adopted.
  const edits = [options.agentMemoryMd ?? []].flat().find((e) => e.rolloutId === id);
  if (edits && edits.start !== edits.end) {
    // The agent's edits of MEMORY.md are proposals of this rollout: judged against its own transcript.
    judged = judgeAgentEdits(edits, viewRollout(records, id), writes);
    const have = new Set(extraction.memories.map((m) => normalizeText(m.text)));
    for (const m of judged.memories) if (!have.has(normalizeText(m.text))) extraction.memories.push(m);
    if (judged.rejected.length) log.warn({ rolloutId: id, rejected: judged.rejected }, "edits of MEMORY.md by the run's agent that do not win (the old entries stay)");
  }
  const rawText = renderRawMemories(extraction.meta, extraction.memories);
  await writeFileAtomic(paths.rolloutSummary(id), renderRolloutSummary(extraction.meta, extraction.summary));
  await writeFileAtomic(paths.rawMemories(id), rawText);
  const calls = extraction.modelCalls ?? (extraction.meta.producer.startsWith('model:') ? 1 : 0);
  return { time: extraction.meta.time, producer: extraction.meta.producer, rawHash: sha256(rawText), calls, use: countMemoryUse(records, layout), memoryMdWrites: writes, ...(judged ? { judged } : {}) };
}

/**
 * The memory pipeline for one memory layout (DESIGN.md steps 7–8): phase 1 for every transcript in
 * `sessions/*.jsonl` not yet extracted (and every one that failed before: retried, its error recorded in
 * `memories/.state.json`), the use signal of each new transcript, then phase 2. Every file is redacted and
 * written atomically; the layout's folders go into `.git/info/exclude` in a git workspace.
 * A rollout's failure does not stop the others; a phase 2 failure is returned in `phase2Error` and leaves
 * the previous MEMORY.md in place. Holds `memories/.lock` while it runs.
 * @throws MnemaraError `BUSY` (another live pipeline still holds the lock after `lockWaitMs`), `INVALID_INPUT` (damaged `.state.json`),
 *   `INVALID_CONFIG` (layout outside the workspace), `USAGE` (model extractor without client/model).
 */
export async function runMemoryPipeline(options: MemoryPipelineOptions): Promise<MemoryPipelineResult> {
  const layout = options.layout ?? options.config.layout ?? { memoriesDir: 'memories', sessionsDir: 'sessions' };
  const paths = memoryPaths(options.workspaceDir, layout);
  if (options.extractor === 'model' && (!options.client || !options.model)) {
    throw new MnemaraError('USAGE', 'the model extractor needs a model client and a model name', {
      hint: 'Set ANTHROPIC_API_KEY and a model, or use the deterministic extractor (memory.extractor: deterministic).',
    });
  }
  const onProgress = options.onProgress ?? noProgress;
  const now = options.now ?? (() => new Date());
  // Before anything is read or written there (the lock file, .git/info/exclude): a link is followed on the host.
  await assertNoLayoutLinks(options.workspaceDir, layout);
  await excludeFromGit(paths.workspaceDir, layout).catch((err: Error) => log.warn({ err: err.message }, 'could not update .git/info/exclude'));
  const lockOptions = options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {};
  return withMemoryLock(join(paths.memoriesDir, '.lock'), async () => {
    const state = await loadState(paths.stateFile);
    // The agent's own notes under memories/ are memory files too: no secret may stay in them. Files an older
    // mnemara wrote with older rules are redacted again, once per rules version.
    let rescrubbed = false;
    if (state.redactedWith !== REDACTION_VERSION) {
      rescrubbed = (await reRedactLayout(paths)).handbookDirty;
      state.redactedWith = REDACTION_VERSION;
      await saveState(paths.stateFile, state);
    } else {
      await redactForeignMemoryFiles(paths);
    }
    const result: MemoryPipelineResult = { extracted: [], pending: [], consolidated: false, added: [], changed: [], removed: [], forgottenRollouts: [], modelCalls: 0, phase2Error: null };
    const todo: string[] = [];
    // The newest rollout that wrote MEMORY.md itself: its changes are the agent's, not a person's.
    let agentEdits: { rolloutId: string; lines: number[] } | undefined;
    const retired: RetiredEntry[] = [];
    for (const id of await transcriptIds(paths)) {
      const s = state.rollouts[id];
      if (s?.status === 'extracted' || s?.status === 'forgotten') continue;
      // Refused as too large at this window or a smaller one: the identical request would be refused again.
      const refusedAt = s?.status === 'failed' && s.error?.includes(TOO_LARGE_MARK) ? Number(s.error.split(TOO_LARGE_MARK)[1]?.match(/^\d+/)?.[0]) : NaN;
      if (options.extractor === 'model' && refusedAt <= (options.contextTokens ?? DEFAULT_CONTEXT_TOKENS)) continue;
      const adopted = s ? null : await adoptArtifacts(paths, id);
      if (adopted) state.rollouts[id] = { status: 'extracted', ...adopted, attempts: 0, seq: nextSeq(state), updatedAt: now().toISOString() };
      else todo.push(id);
    }
    onProgress({ step: 'extraction', phase: 'start', message: `${todo.length} rollout(s) to extract`, done: 0, total: todo.length, unit: 'rollouts' });
    for (const [i, id] of todo.entries()) {
      const attempts = (state.rollouts[id]?.attempts ?? 0) + 1;
      try {
        const out = await extractOne(paths, id, options);
        state.rollouts[id] = { status: 'extracted', time: out.time, producer: out.producer, rawHash: out.rawHash, attempts, seq: nextSeq(state), updatedAt: now().toISOString() };
        result.extracted.push(id);
        if (out.memoryMdWrites.length && !out.judged) agentEdits = { rolloutId: id, lines: out.memoryMdWrites };
        if (out.judged) {
          retired.push(...out.judged.retired);
          result.agentEdits = { rolloutId: id, proposed: out.judged.memories.length, retired: [], rejected: out.judged.rejected };
          if (out.judged.rejected.length) {
            onProgress({ step: 'agent-edits', phase: 'end', ok: false, message: `${out.judged.rejected.length} edit(s) of MEMORY.md by the agent of ${id} did not win (${out.judged.rejected.map((x) => `${x.change} ${x.id}: ${x.why}`).join('; ').slice(0, 400)})` });
          }
        }
        result.modelCalls += out.calls;
        if (!state.usesCounted.includes(id)) {
          for (const [k, n] of Object.entries(out.use.entries)) state.uses[k] = (state.uses[k] ?? 0) + n;
          for (const [k, n] of Object.entries(out.use.files)) state.fileUses[k] = (state.fileUses[k] ?? 0) + n;
          state.usesCounted.push(id);
        }
      } catch (err) {
        // Error messages can quote transcript text: redacted like everything else that is stored.
        const error = redact(err instanceof Error ? err.message : String(err));
        // An answer that was not the structured one, twice, is what an endpoint that is not Claude gives: the
        // callers fall back to the deterministic extractor and say so in one line (twelfth trial F20).
        (invalidAnswer(err) ? log.info : log.warn).call(log, { rolloutId: id, attempts, error }, 'phase 1 failed; the rollout stays pending');
        state.rollouts[id] = { ...(state.rollouts[id] ?? { time: '' }), status: 'failed', error, attempts, updatedAt: now().toISOString() };
      }
      await saveState(paths.stateFile, state);
      onProgress({ step: 'extraction', phase: 'progress', done: i + 1, total: todo.length, unit: 'rollouts' });
    }
    await saveState(paths.stateFile, state);
    onProgress({ step: 'extraction', phase: 'end', message: `${result.extracted.length} extracted` });
    result.pending = Object.entries(state.rollouts)
      .filter(([, s]) => s.status === 'failed')
      .map(([rolloutId, s]) => ({ rolloutId, error: s.error ?? 'unknown error' }));
    try {
      const c = await consolidate({
        paths,
        config: options.config,
        mode: options.extractor,
        ...(options.client ? { client: options.client } : {}),
        ...(options.model ? { model: options.model } : {}),
        force: (options.forceConsolidation ?? false) || rescrubbed,
        ...(agentEdits ? { agentEdits } : {}),
        ...(retired.length ? { retired } : {}),
        now,
        onProgress,
      });
      Object.assign(result, { consolidated: c.consolidated, added: c.added, changed: c.changed, removed: c.removed, forgottenRollouts: c.forgottenRollouts, archived: c.archived, archivedPersonal: c.archivedPersonal, superseded: c.superseded });
      result.modelCalls += c.modelCalls;
      if (result.agentEdits) result.agentEdits.retired = c.retiredByAgent.map(({ id, reason, personal }) => ({ id, reason, personal }));
    } catch (err) {
      const e = err as { code?: string; message?: string; hint?: string };
      result.phase2Error = { code: typeof e.code === 'string' ? e.code : 'INTERNAL', message: redact(e.message ?? String(err)), ...(e.hint ? { hint: e.hint } : {}) };
      (invalidAnswer(err) ? log.info : log.error).call(log, { err: result.phase2Error }, 'phase 2 failed; the previous MEMORY.md is kept');
    }
    return result;
  }, lockOptions);
}
