import type { ModelClient } from '../../agent/client.js';
import type { NumberedRecord } from '../../transcript/schema.js';
import { MnemaraError } from '../../config/errors.js';
import { noProgress, type OnProgress } from '../../config/progress.js';
import { loadPrompt, type Prompt } from '../prompts.js';
import { redactDeep } from '../redact.js';
import type { Extraction, RawMemory } from '../types.js';
import { DEFAULT_CONTEXT_TOKENS, transcriptBudget } from './budget.js';
import { extractDeterministic } from './deterministic/index.js';
import type { CountTokens } from '../token-count.js';
import { TooLargeError, extractWithModel } from './model.js';
import { viewRollout } from './rollout.js';
import { summarizeRollout } from './summary.js';

export { chunkTranscript, transcriptBudget, DEFAULT_CONTEXT_TOKENS } from './budget.js';
export { ModelExtractionSchema } from './model.js';
export { viewRollout, type RolloutView } from './rollout.js';

/** Version of the deterministic rules, recorded as `promptVersion` in the files they produce. */
export const DETERMINISTIC_VERSION = 'deterministic-v1';

/** Start of the error of a rollout refused as too large at a context window: `too large at contextTokens=<n>`. */
export const TOO_LARGE_MARK = 'too large at contextTokens=';

export { refusedAsTooLarge } from './model.js';

/** Inputs of {@link extractRollout}. */
export interface ExtractRolloutOptions {
  /** The transcript's records with their 1-based lines (`loadTranscript`, or an importer + `numbered`). */
  records: NumberedRecord[];
  /** Default: the `session_meta` rollout id; required when the records have none. */
  rolloutId?: string;
  /** The transcript's path relative to the workspace root (`sessions/<id>.jsonl`), for the front matter `source`. */
  transcriptPath: string;
  mode: 'deterministic' | 'model';
  /** Model path: the client (`createModelClient`) and the model name. */
  client?: ModelClient;
  model?: string;
  /** Model path: the model's context window (tokens, default 200,000); the transcript gets 60 % of it. */
  contextTokens?: number;
  /** Model path: max output tokens of the call (default 8,192). */
  maxOutputTokens?: number;
  /** Model path: receive answers as streams (SSE). */
  stream?: boolean;
  /** Model path: counts requests before they are sent (`tokenCounter(client)`); default: not counted, estimated only. */
  countTokens?: CountTokens;
  /** Model path: the prompt (default `src/memory/prompts/phase1.md`). */
  prompt?: Prompt;
  onProgress?: OnProgress;
}

/**
 * Phase 1 for one rollout: transcript records → {@link Extraction} (front matter, rollout summary, raw
 * memories), the input of `raw_memories/<id>.md` and `rollout_summaries/<id>.md`.
 * Filter: the system prompt and the memory block the run started with are dropped. Redaction runs on the
 * records before anything reads them and again on every output. `mode: 'deterministic'` reads the
 * transcript's structure (no network; `producer: deterministic`, `promptVersion: deterministic-v1`);
 * `mode: 'model'` makes one structured call (retried once on invalid output) per part of the transcript, parts
 * of at most the budget derived from `contextTokens`, and merges the parts' lessons (`extractWithModel`;
 * `producer: model:<name>`, `promptVersion` from the prompt file).
 * An empty `memories` is a valid result: the run taught nothing.
 * @throws MnemaraError `INVALID_INPUT` (no records, or no rollout id), `USAGE` (model mode without a client
 *   or model), `MODEL_OUTPUT_INVALID` (the model answered invalidly twice), `MODEL_INPUT_TOO_LARGE` (a part
 *   still refused or counted too large after splitting; the message starts `too large at contextTokens=<n>`);
 *   SDK errors pass through.
 */
export async function extractRollout(options: ExtractRolloutOptions): Promise<Extraction> {
  const { records, mode, onProgress = noProgress } = options;
  if (records.length === 0) {
    throw new MnemaraError('INVALID_INPUT', `transcript ${options.transcriptPath} has no readable records`, {
      hint: 'Check the file with `mnemara learn`; a transcript needs at least its session_meta line.',
    });
  }
  const view = viewRollout(records, options.rolloutId ?? '');
  if (options.rolloutId) view.rolloutId = options.rolloutId;
  if (!view.rolloutId) {
    throw new MnemaraError('INVALID_INPUT', `transcript ${options.transcriptPath} has no session_meta with a rollout id`, {
      hint: 'Pass rolloutId explicitly for transcripts without a session_meta line.',
    });
  }
  const started = Date.now();
  onProgress({ step: 'phase1', phase: 'start', message: `extracting ${view.rolloutId} (${mode})` });

  let memories: RawMemory[];
  let summary;
  let producer: string;
  let promptVersion: string;
  let modelCalls: number | undefined;
  if (mode === 'model') {
    if (!options.client || !options.model) {
      throw new MnemaraError('USAGE', 'phase 1 in model mode needs a model client and a model name', {
        hint: 'Configure a model (ANTHROPIC_API_KEY / --model), or use memory.extractor: deterministic.',
      });
    }
    const prompt = options.prompt ?? (await loadPrompt('phase1'));
    const contextTokens = options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
    let result: Awaited<ReturnType<typeof extractWithModel>>;
    try {
      result = await extractWithModel(view, {
        client: options.client,
        model: options.model,
        prompt,
        contextTokens,
        budgetTokens: transcriptBudget(contextTokens),
        ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
        ...(options.stream ? { stream: true } : {}),
        ...(options.countTokens ? { countTokens: options.countTokens } : {}),
      });
    } catch (err) {
      // Never retried identically: the pipeline skips a rollout marked so at this window or a larger one.
      if (!(err instanceof TooLargeError)) throw err;
      throw new MnemaraError('MODEL_INPUT_TOO_LARGE', `${TOO_LARGE_MARK}${contextTokens}: rollout ${view.rolloutId}: ${err.message}`, {
        hint: `Retry with a smaller window: mnemara memory consolidate --context-tokens ${Math.max(4000, Math.floor(contextTokens / 2))} (or --deterministic).`,
      });
    }
    memories = result.memories;
    modelCalls = result.calls;
    const fallback = summarizeRollout(view, memories);
    summary = {
      task: result.summary.task || fallback.task,
      tried: result.summary.tried.length ? result.summary.tried : fallback.tried,
      worked: result.summary.worked,
      outcome: result.summary.outcome || fallback.outcome,
      filesChanged: result.summary.filesChanged.length ? result.summary.filesChanged : fallback.filesChanged,
    };
    producer = `model:${options.model}`;
    promptVersion = prompt.version;
  } else {
    memories = extractDeterministic(view);
    summary = summarizeRollout(view, memories);
    producer = 'deterministic';
    promptVersion = DETERMINISTIC_VERSION;
  }

  const extraction: Extraction = redactDeep({
    meta: {
      rolloutId: view.rolloutId,
      time: view.startedAt,
      outcome: view.outcome,
      source: options.transcriptPath,
      producer,
      promptVersion,
    },
    summary,
    memories,
    ...(modelCalls !== undefined ? { modelCalls } : {}),
  });
  onProgress({
    step: 'phase1',
    phase: 'end',
    message: `${view.rolloutId}: ${extraction.memories.length} raw memories`,
    elapsedMs: Date.now() - started,
  });
  return extraction;
}
