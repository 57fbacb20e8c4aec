import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { importTranscriptFile } from '../../src/agent/transcript/importers/index.js';
import { renderRawMemories, renderRolloutSummary } from '../../src/memory/artifacts.js';
import type { MemoryPaths } from '../../src/memory/layout.js';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { redactDeep } from '../../src/memory/redact.js';

/**
 * Learns one transcript into a workspace's memory layout the way a session does after its run: import,
 * keep the (redacted) transcript in `sessions/`, phase 1 (deterministic), write the rollout's files, then
 * phase 2 (deterministic consolidation). `startedAt` stamps the rollout (the fixtures carry no times).
 */
export async function learnInto(paths: MemoryPaths, transcript: string, startedAt: string): Promise<{ rolloutId: string; rawMemories: number }> {
  const imported = await importTranscriptFile(transcript, { startedAt });
  const records = imported.records.map((r) => ({ line: r.line, record: redactDeep(r.record) }));
  const meta = records[0]?.record;
  const rolloutId = meta?.type === 'session_meta' ? meta.rolloutId : `eval-${Date.parse(startedAt)}`;
  await put(paths.transcript(rolloutId), records.map((r) => JSON.stringify(r.record)).join('\n') + '\n');
  const extraction = await extractRollout({ records, rolloutId, transcriptPath: `sessions/${rolloutId}.jsonl`, mode: 'deterministic' });
  await put(paths.rawMemories(rolloutId), renderRawMemories(extraction.meta, extraction.memories));
  await put(paths.rolloutSummary(rolloutId), renderRolloutSummary(extraction.meta, extraction.summary));
  await consolidate({
    paths,
    config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 },
    mode: 'deterministic',
    now: () => new Date(Date.parse(startedAt) + 3_600_000),
  });
  return { rolloutId, rawMemories: extraction.memories.length };
}

async function put(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}
