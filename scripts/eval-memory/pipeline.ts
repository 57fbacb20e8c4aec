import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ModelClient } from '../../src/agent/client.js';
import { importTranscriptFile } from '../../src/transcript/importers/index.js';
import type { MemoryPaths } from '../../src/memory/layout.js';
import { runMemoryPipeline, type MemoryPipelineResult } from '../../src/memory/pipeline.js';
import { redactDeep } from '../../src/memory/redact.js';

/** Which path learns: the deterministic one (default), or the model with a client. */
export type Extractor = { extractor: 'deterministic' } | { extractor: 'model'; client: ModelClient; model: string };

/**
 * Learns one transcript into a workspace's memory layout as `mnemara learn` does (`learnTranscript`):
 * import, store it redacted as `sessions/<id>.jsonl`, run the memory pipeline (phase 1 for new rollouts,
 * then phase 2; deterministic unless `how` says model). Unlike `learn`, `startedAt` stamps the rollout, so that a repo's runs
 * keep their `sequence` order in time (the fixtures carry no times); the pipeline's clock is an hour later.
 */
export async function learnInto(
  paths: MemoryPaths,
  transcript: string,
  startedAt: string,
  how: Extractor = { extractor: 'deterministic' },
): Promise<MemoryPipelineResult & { rolloutId: string }> {
  const imported = await importTranscriptFile(transcript, { startedAt });
  const meta = imported.records[0]?.record;
  const rolloutId = meta?.type === 'session_meta' ? meta.rolloutId : `eval-${Date.parse(startedAt)}`;
  const jsonl = imported.records.map((r) => JSON.stringify(redactDeep(r.record))).join('\n') + '\n';
  await mkdir(dirname(paths.transcript(rolloutId)), { recursive: true });
  await writeFile(paths.transcript(rolloutId), jsonl);
  const result = await runMemoryPipeline({
    workspaceDir: paths.workspaceDir,
    ...how,
    config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 },
    now: () => new Date(Date.parse(startedAt) + 3_600_000),
  });
  if (result.pending.length || result.phase2Error) {
    throw new Error(`pipeline failed on ${rolloutId}: ${JSON.stringify({ pending: result.pending, phase2: result.phase2Error })}`);
  }
  return { ...result, rolloutId };
}
