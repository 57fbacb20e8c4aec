import { relative, sep } from 'node:path';
import { MEMORY_ENTRY } from '../transcript/importers/index.js';
import { readTranscript } from '../transcript/reader.js';
import { renderRawMemories, renderRolloutSummary } from './artifacts.js';
import { writeFileAtomic } from './atomic.js';
import { dangerousInstruction } from './injection.js';
import type { MemoryPaths } from './layout.js';
import { redact } from './redact.js';
import type { MemoryKind, RawMemory } from './types.js';

/** Version of the mapping below, recorded as the artifacts' `promptVersion`. */
export const SDK_MEMORY_IMPORT_VERSION = 'agents-sdk-memory-import-v1';

/**
 * The Agents SDK's MEMORY.md, imported as a rollout (`agents-sdk-memory` importer), turned into that rollout's
 * phase 1 artifacts without extraction: each entry record becomes one raw memory (its kind read from its
 * heading and wording, importance 3, evidence = its line in the stored transcript, whose raw record names the
 * source file and line), so consolidation brings the entries into MEMORY.md with the rollout as their source.
 * An entry that tells to fetch and run code, send data away, leave the sandbox or change where requests go
 * (`dangerousInstruction`) is left out: it would reach MEMORY.md as written by a run, past every later filter
 * (trial 25, N9: a learned foreign memory put 43 planted instructions into the next prompt).
 * Returns the number of raw memories written and of entries left out as injected.
 */
export async function writeSdkMemoryArtifacts(paths: MemoryPaths, rolloutId: string): Promise<{ written: number; injected: number }> {
  const memories: RawMemory[] = [];
  let injected = 0;
  let time = '';
  let source = '';
  for await (const { line, record } of readTranscript(paths.transcript(rolloutId))) {
    if (record.type === 'session_meta') {
      time = record.ts;
      source = record.task;
    }
    if (record.type !== 'unknown' || record.sourceType !== MEMORY_ENTRY) continue;
    const raw = record.raw as { text?: string; heading?: string; file?: string; line?: number };
    const text = redact(String(raw.text ?? '')).trim();
    if (!text) continue;
    if (dangerousInstruction(text)) {
      injected += 1;
      continue;
    }
    memories.push({
      kind: kindOf(String(raw.heading ?? ''), text),
      text,
      evidence: { lines: [line], quote: `${raw.file ?? ''}:${raw.line ?? ''}` },
      importance: 3,
      keywords: [...new Set(text.toLowerCase().match(/[a-z][a-z0-9_.-]{3,}/g) ?? [])].slice(0, 8),
    });
  }
  const meta = {
    rolloutId, time, outcome: 'completed', source: relative(paths.workspaceDir, paths.transcript(rolloutId)).split(sep).join('/'),
    producer: 'deterministic', promptVersion: SDK_MEMORY_IMPORT_VERSION,
  };
  await writeFileAtomic(paths.rolloutSummary(rolloutId), renderRolloutSummary(meta, {
    task: source, tried: [], worked: [`${memories.length} entries brought over`], outcome: 'imported', filesChanged: [],
  }));
  await writeFileAtomic(paths.rawMemories(rolloutId), renderRawMemories(meta, memories));
  return { written: memories.length, injected };
}

function kindOf(heading: string, text: string): MemoryKind {
  const h = heading.toLowerCase();
  if (/prefer|user|style|convention/.test(h) || /^(always|never|prefer|don't|do not)\b/i.test(text)) return 'preference';
  if (/pitfall|gotcha|failure|landmine|avoid|error/.test(h) || /\b(fails?|breaks?|avoid|don't|never)\b/i.test(text)) return 'pitfall';
  if (/procedure|workflow|how|steps|commands?|playbook/.test(h) || /\b(run|use|install)\s+`/i.test(text)) return 'procedure';
  return 'fact';
}
