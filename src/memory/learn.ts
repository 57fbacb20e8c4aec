import { readFile } from 'node:fs/promises';
import { importTranscriptFile, type TranscriptFormat } from '../transcript/importers/index.js';
import { MnemaraError } from '../config/errors.js';
import { MemoryConfigSchema } from '../config/memory.js';
import { writeFileAtomic } from './atomic.js';
import { memoryPaths } from './layout.js';
import { runMemoryPipeline, type MemoryPipelineOptions, type MemoryPipelineResult } from './pipeline.js';
import { redactDeep } from './redact.js';

/** What `learnTranscript` did: the rollout it stored and the pipeline's result. */
export interface LearnResult extends MemoryPipelineResult {
  rolloutId: string;
  format: TranscriptFormat;
  /** `sessions/<id>.jsonl`, relative to the workspace. */
  transcript: string;
  /** Input lines that could not be used (damaged JSONL). */
  skippedLines: number;
  /** The same transcript was learned before: nothing new was stored. */
  alreadyKnown: boolean;
}

/**
 * `mnemara learn`: imports a transcript from elsewhere (Anthropic Messages JSON first; also Claude Code JSONL
 * and mnemara's own JSONL), stores it redacted as `sessions/<rollout-id>.jsonl` in `workspaceDir`'s memory
 * layout, and runs the memory pipeline (phase 1 for it, then phase 2). Default options: the deterministic
 * extractor and the default memory configuration.
 * @throws MnemaraError `NOT_FOUND` / `INVALID_INPUT` (unreadable or unknown format, or a different transcript
 *   already stored under the same rollout id), and whatever {@link runMemoryPipeline} throws.
 */
export async function learnTranscript(
  file: string,
  workspaceDir: string,
  options: Omit<MemoryPipelineOptions, 'workspaceDir'> = { extractor: 'deterministic', config: MemoryConfigSchema.parse({}) },
): Promise<LearnResult> {
  const imported = await importTranscriptFile(file);
  const meta = imported.records[0]?.record;
  if (meta?.type !== 'session_meta') {
    throw new MnemaraError('INVALID_INPUT', `${file} has no session_meta record, so it has no rollout id`, {
      hint: 'Transcripts need a first line of type session_meta (mnemara JSONL) or an "id" field (Anthropic Messages form).',
    });
  }
  const layout = options.layout ?? options.config.layout ?? { memoriesDir: 'memories', sessionsDir: 'sessions' };
  const paths = memoryPaths(workspaceDir, layout);
  const target = paths.transcript(meta.rolloutId);
  const jsonl = imported.records.map((r) => JSON.stringify(redactDeep(r.record))).join('\n') + '\n';
  const existing = await readFile(target, 'utf8').catch(() => null);
  if (existing !== null && existing !== jsonl) {
    throw new MnemaraError('INVALID_INPUT', `another transcript is already stored as rollout ${meta.rolloutId} (${target})`, {
      hint: 'Give the transcript another id (the "id" field of the Messages form), or remove the stored one first.',
    });
  }
  if (existing === null) await writeFileAtomic(target, jsonl);
  const result = await runMemoryPipeline({ ...options, workspaceDir });
  return {
    ...result,
    rolloutId: meta.rolloutId,
    format: imported.format,
    transcript: `${layout.sessionsDir}/${meta.rolloutId}.jsonl`,
    skippedLines: imported.skipped.length,
    alreadyKnown: existing !== null,
  };
}
