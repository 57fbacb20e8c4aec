import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderRawMemories, renderRolloutSummary } from '../../src/memory/artifacts.js';
import { memoryPaths, type MemoryPaths } from '../../src/memory/layout.js';
import type { MemoryKind, RawMemory } from '../../src/memory/types.js';

/** A fresh workspace directory with the default memory layout resolved. */
export async function tempWorkspace(prefix = 'mnemara-mem-'): Promise<MemoryPaths> {
  const ws = await mkdtemp(join(tmpdir(), prefix));
  return memoryPaths(ws);
}

export function raw(kind: MemoryKind, text: string, importance = 3, keywords: string[] = []): RawMemory {
  return { kind, text, evidence: { lines: [1] }, importance, keywords };
}

/** Writes what phase 1 would have written for one rollout: raw memories, rollout summary and a transcript. */
export async function writeRollout(paths: MemoryPaths, rolloutId: string, time: string, memories: RawMemory[], run: { task?: string; outcome?: string; tried?: string[] } = {}): Promise<void> {
  const meta = { rolloutId, time, outcome: run.outcome ?? 'completed', source: `sessions/${rolloutId}.jsonl`, producer: 'deterministic', promptVersion: 'phase1-det-v1' };
  await mkdir(paths.rawMemoriesDir, { recursive: true });
  await mkdir(paths.rolloutSummariesDir, { recursive: true });
  await mkdir(paths.sessionsDir, { recursive: true });
  await writeFile(paths.rawMemories(rolloutId), renderRawMemories(meta, memories));
  await writeFile(paths.rolloutSummary(rolloutId), renderRolloutSummary(meta, { task: run.task ?? 't', tried: run.tried ?? [], worked: [], outcome: meta.outcome, filesChanged: [] }));
  await writeFile(paths.transcript(rolloutId), '');
}

export const CONFIG = { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 };
