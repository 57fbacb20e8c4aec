import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import { loadTranscript, type RepairedLine } from '../reader.js';
import type { NumberedRecord, SkippedLine, TranscriptRecord, TranscriptSource } from '../schema.js';
import { agentsSdkMemoryImporter } from './agents-sdk-memory.js';
import { agentsSdkImporter } from './agents-sdk.js';
import { aiderImporter } from './aider.js';
import type { ImportOptions } from './anthropic-messages.js';
import { claudeCodeImporter } from './claude-code.js';
import { codexImporter } from './codex.js';
import { anthropicMessagesImporter } from './messages-importer.js';
import { miniSweAgentImporter } from './mini-swe-agent.js';
import { mnemaraImporter } from './mnemara.js';
import { openHandsImporter } from './openhands.js';
import { openSource, probeFile } from './source.js';
import { storeImport } from './store.js';
import { sweAgentImporter } from './swe-agent.js';
import { emptyStats, obj, type Importer, type Probe } from './types.js';

export { importAnthropicMessages, importAnthropicMessagesFile, type ImportOptions } from './anthropic-messages.js';
export { splitMemoryBlock } from './memory-block.js';
export { storeImport, digest, type ImportedRollout } from './store.js';
export { openSource, probeFile, MAX_DOCUMENT_BYTES } from './source.js';
export { MEMORY_ENTRY } from './agents-sdk-memory.js';
export type { ImportStats, Importer } from './types.js';

/** Formats `importTranscriptFile` recognises (a transcript's `session_meta.source`). */
export type TranscriptFormat = TranscriptSource;

/**
 * Every importer, in the order detection tries them (the more specific first). Keys name them in the
 * `learn` table (`agents-sdk-memory` is the Agents SDK's MEMORY.md, `agents-sdk` its session transcripts).
 */
export const IMPORTERS: Array<{ key: string; importer: Importer }> = [
  { key: 'mnemara', importer: mnemaraImporter },
  { key: 'codex', importer: codexImporter },
  { key: 'claude-code', importer: claudeCodeImporter },
  { key: 'agents-sdk', importer: agentsSdkImporter },
  { key: 'openhands', importer: openHandsImporter },
  { key: 'mini-swe-agent', importer: miniSweAgentImporter },
  { key: 'swe-agent', importer: sweAgentImporter },
  { key: 'anthropic-messages', importer: anthropicMessagesImporter },
  { key: 'aider', importer: aiderImporter },
  { key: 'agents-sdk-memory', importer: agentsSdkMemoryImporter },
];

/** The supported formats, one a line, for refusals and help texts. */
export function supportedFormats(): string {
  return IMPORTERS.map(({ key, importer }) => `${key}: ${importer.title}`).join('; ');
}

/**
 * Picks the importer for a file by its content (never its name; only the Agents SDK's MEMORY.md is known by
 * its place in that SDK's memory layout).
 * @throws MnemaraError `NOT_FOUND` (no such file), `INVALID_INPUT` (a directory, an empty file, or no format
 *   matches: the message lists the supported formats and says what the file looked like).
 */
export async function detectImporter(path: string): Promise<{ key: string; importer: Importer; size: number }> {
  let size: number;
  try {
    const st = await stat(path);
    if (st.isDirectory()) {
      throw new MnemaraError('INVALID_INPUT', `${path} is a directory, not a transcript file`, { hint: 'Pass one transcript file, or use `mnemara learn DIR` to learn every transcript under a directory.' });
    }
    size = st.size;
  } catch (err) {
    if (err instanceof MnemaraError) throw err;
    throw new MnemaraError('NOT_FOUND', `transcript ${path} does not exist`, { hint: 'Check the path.', cause: err });
  }
  const probe = size === 0 ? ({ kind: 'text', head: '' } as const) : await probeFile(path, size);
  const withPath = { ...probe, path } as Probe & { path: string };
  for (const entry of IMPORTERS) if (entry.importer.detect(withPath)) return { ...entry, size };
  throw new MnemaraError('INVALID_INPUT', `${path} is not a transcript mnemara can read: it looks like ${describeProbe(probe, size)}`, {
    hint: `Supported formats — ${supportedFormats()}.`,
  });
}

/** What a file looked like, for a refusal: its kind, and its first keys/types or text. */
export function describeProbe(probe: Probe, size: number): string {
  if (size === 0) return 'an empty file';
  const keys = (v: unknown) => Object.keys(obj(v) ?? {}).slice(0, 8).join(', ');
  if (probe.kind === 'json') {
    return Array.isArray(probe.doc) ? `a JSON array of ${probe.doc.length} item(s) (first item's keys: ${keys(probe.doc[0]) || 'none'})` : `a JSON document with keys ${keys(probe.doc) || '(none)'}`;
  }
  if (probe.kind === 'jsonl') {
    const types = [...new Set(probe.values.map((v) => String(obj(v)?.type ?? '(no type)')))].slice(0, 6).join(', ');
    return `JSONL (${probe.values.length} readable line(s) probed; types: ${types}; first line's keys: ${keys(probe.values[0])})`;
  }
  const head = probe.head.replace(/\s+/g, ' ').trim().slice(0, 120);
  return `text starting with ${JSON.stringify(head)}`;
}

export interface ImportedTranscript {
  format: TranscriptFormat;
  records: NumberedRecord[];
  skipped: SkippedLine[];
  repaired: RepairedLine[];
}

/**
 * Imports one file in any supported format and returns its (first) rollout's records, collected: for small
 * transcripts (tests, the eval). `mnemara learn` streams instead (`storeImport`). `startedAt` stands in for
 * the file's modification time where the format records no times.
 * @throws MnemaraError `NOT_FOUND`, `INVALID_INPUT` (see {@link detectImporter}).
 */
export async function importTranscriptFile(path: string, options: ImportOptions = {}): Promise<ImportedTranscript> {
  const { importer } = await detectImporter(path);
  const stats = emptyStats();
  const src = await openSource(path, stats);
  if (options.startedAt) src.mtime = options.startedAt;
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-import-'));
  try {
    const { rollouts } = await storeImport(importer, src, dir, { stats });
    if (!rollouts[0]) throw new MnemaraError('INVALID_INPUT', `${path} holds no rollout`, { hint: 'The file has no records mnemara can use.' });
    const loaded = await loadTranscript(rollouts[0].file);
    const records = options.rolloutId ? loaded.records.map((r) => (r.record.type === 'session_meta' ? { ...r, record: { ...r.record, rolloutId: options.rolloutId! } } : r)) : loaded.records;
    return { format: importer.format, records, skipped: loaded.skipped, repaired: loaded.repaired };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Numbers records 1…N (their line numbers once written out one a line). */
export function numbered(records: TranscriptRecord[]): NumberedRecord[] {
  return records.map((record, i) => ({ line: i + 1, record }));
}
