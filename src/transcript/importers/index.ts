import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import { loadTranscript, type RepairedLine } from '../reader.js';
import type { NumberedRecord, SkippedLine, TranscriptRecord, TranscriptSource } from '../schema.js';
import { agentsSdkMemoryImporter } from './agents-sdk-memory.js';
import { agentsSdkItemsImporter, agentsSdkItemsNearMiss } from './agents-sdk-items.js';
import { agentsSdkImporter } from './agents-sdk.js';
import { aiderImporter } from './aider.js';
import type { ImportOptions } from './anthropic-messages.js';
import { claudeCodeImporter } from './claude-code.js';
import { codexImporter } from './codex.js';
import { geminiCliImporter, geminiNearMiss } from './gemini-cli.js';
import { anthropicMessagesImporter } from './messages-importer.js';
import { miniSweAgentImporter } from './mini-swe-agent.js';
import { mnemaraImporter } from './mnemara.js';
import { openHandsImporter } from './openhands.js';
import { MAX_DOCUMENT_BYTES, openSource, probeFile } from './source.js';
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
 * `learn` table (`agents-sdk-memory` is the Agents SDK's MEMORY.md, `agents-sdk` its sandbox memory session transcripts,
 * `agents-sdk-items` a run's items as the user saved them).
 */
export const IMPORTERS: Array<{ key: string; importer: Importer }> = [
  { key: 'mnemara', importer: mnemaraImporter },
  { key: 'codex', importer: codexImporter },
  { key: 'claude-code', importer: claudeCodeImporter },
  { key: 'agents-sdk', importer: agentsSdkImporter },
  { key: 'openhands', importer: openHandsImporter },
  { key: 'gemini-cli', importer: geminiCliImporter },
  { key: 'mini-swe-agent', importer: miniSweAgentImporter },
  { key: 'swe-agent', importer: sweAgentImporter },
  { key: 'anthropic-messages', importer: anthropicMessagesImporter },
  { key: 'agents-sdk-items', importer: agentsSdkItemsImporter },
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
  const probe: Probe = size === 0 ? { kind: 'text', head: '' } : await probeFile(path, size);
  const withPath = { ...probe, path } as Probe & { path: string };
  for (const entry of IMPORTERS) if (entry.importer.detect(withPath)) return { ...entry, size };
  const near = [geminiNearMiss(probe), agentsSdkItemsNearMiss(probe)].find(Boolean);
  if (near) throw new MnemaraError('INVALID_INPUT', `${path} is not a transcript mnemara can read: ${near}`, { hint: `Supported formats — ${supportedFormats()}.` });
  if (probe.kind === 'text' && probe.jsonError) {
    throw new MnemaraError('INVALID_INPUT', `${path} is not a transcript mnemara can read: it starts like a JSON document but does not parse (${probe.jsonError}), so it was cut short or damaged`, {
      hint: 'A JSON document cannot be read past damage: copy the file again from where the agent wrote it (formats written as JSONL are read up to a cut).',
    });
  }
  const big = probe.kind === 'text' && size > MAX_DOCUMENT_BYTES && /^[\s\0]*[[{]/.test(probe.head);
  throw new MnemaraError('INVALID_INPUT', `${path} is not a transcript mnemara can read: it looks like ${big ? `a JSON document of ${size} bytes, over the ${MAX_DOCUMENT_BYTES}-byte cap for formats read whole, so it was not parsed` : describeProbe(probe, size)}`, {
    hint: big ? 'JSON-document trajectories are parsed whole; split the run, or trim its largest outputs. JSONL formats have no such cap.' : `Supported formats — ${supportedFormats()}.`,
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
  const binary = binaryKind(probe.head);
  if (binary) return `a binary file${binary === 'binary' ? '' : ` (${binary})`} of ${size} bytes, not text`;
  const head = probe.head.replace(/\s+/g, ' ').trim().slice(0, 120);
  return `text starting with ${JSON.stringify(head)}`;
}

/** Magic numbers of binary files someone may pass by mistake, and what they are. */
const MAGIC: Array<[string, string]> = [['\x7fELF', 'an ELF executable'], ['\u001f\ufffd\b', 'gzip'], ['PK\x03\x04', 'a zip archive'], ['\ufffdPNG', 'a PNG image'], ['%PDF-', 'a PDF'], ['SQLite format 3\0', 'an SQLite database']];

/**
 * Whether a file's first bytes (decoded as UTF-8, `probeFile`'s head) are not text: what the magic number
 * names, `binary` for a NUL byte or many control or undecodable characters, else undefined. Printing such a
 * head, escaped, told the user nothing (new-user trial 28: ~300 characters of an ELF file).
 */
function binaryKind(head: string): string | undefined {
  const magic = MAGIC.find(([m]) => head.startsWith(m));
  if (magic) return magic[1];
  const sample = head.slice(0, 4096);
  if (sample.includes('\0')) return 'binary';
  const odd = [...sample].filter((c) => c === '\ufffd' || (c < ' ' && !'\t\n\r\f'.includes(c))).length;
  return sample.length > 0 && odd * 10 > sample.length ? 'binary' : undefined;
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
