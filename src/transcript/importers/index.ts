import { open } from 'node:fs/promises';
import { MnemaraError } from '../../config/errors.js';
import { loadTranscript, type RepairedLine } from '../reader.js';
import type { NumberedRecord, SkippedLine, TranscriptRecord } from '../schema.js';
import { importAnthropicMessagesFile, type ImportOptions } from './anthropic-messages.js';
import { importClaudeCodeFile } from './claude-code.js';

export { importAnthropicMessages, importAnthropicMessagesFile, type ImportOptions } from './anthropic-messages.js';
export { importClaudeCode, importClaudeCodeFile } from './claude-code.js';
export { splitMemoryBlock } from './memory-block.js';

/** Formats `importTranscriptFile` recognises. */
export type TranscriptFormat = 'mnemara' | 'anthropic-messages' | 'claude-code';

export interface ImportedTranscript {
  format: TranscriptFormat;
  records: NumberedRecord[];
  skipped: SkippedLine[];
  repaired: RepairedLine[];
}

/**
 * Reads a transcript from anywhere, sniffing its format from the first line: mnemara's own JSONL
 * (`session_meta` first), Claude Code session JSONL (`sessionId`/`uuid` lines), or one JSON object in the
 * Anthropic Messages form. Imported records are numbered 1…N in order, which are their lines once
 * written out as `sessions/<rollout-id>.jsonl`.
 * @throws MnemaraError `NOT_FOUND`, or `INVALID_INPUT` when the format is none of these.
 */
export async function importTranscriptFile(path: string, options: ImportOptions = {}): Promise<ImportedTranscript> {
  const head = await firstLine(path);
  let first: unknown;
  try {
    first = JSON.parse(head);
  } catch {
    first = undefined;
  }
  const obj = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : undefined;
  if (obj?.type === 'session_meta') {
    const { records, skipped, repaired } = await loadTranscript(path);
    return { format: 'mnemara', records, skipped, repaired };
  }
  if (obj && ('sessionId' in obj || 'uuid' in obj || obj.type === 'summary')) {
    const { records, skipped } = await importClaudeCodeFile(path, options);
    return { format: 'claude-code', records: numbered(records), skipped, repaired: [] };
  }
  if (head.trimStart().startsWith('{')) {
    return { format: 'anthropic-messages', records: numbered(await importAnthropicMessagesFile(path, options)), skipped: [], repaired: [] };
  }
  throw new MnemaraError('INVALID_INPUT', `${path} is not a transcript mnemara can read`, {
    hint: 'Supported: mnemara sessions/*.jsonl, Claude Code session JSONL, and the Anthropic Messages JSON form.',
  });
}

/** Numbers records 1…N (their line numbers once written out one a line). */
export function numbered(records: TranscriptRecord[]): NumberedRecord[] {
  return records.map((record, i) => ({ line: i + 1, record }));
}

/** The first line (up to 1 MiB) of a file; enough to tell the formats apart. */
async function firstLine(path: string): Promise<string> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new MnemaraError('NOT_FOUND', `transcript ${path} does not exist`, { hint: 'Check the path.', cause: err });
    }
    throw err;
  }
  try {
    // Reading a directory fails with EISDIR deep in a reader; say what is wrong instead.
    if ((await fh.stat()).isDirectory()) {
      throw new MnemaraError('INVALID_INPUT', `${path} is a directory, not a transcript file`, {
        hint: 'Pass one transcript file, e.g. sessions/<rollout-id>.jsonl or an Anthropic Messages .json file.',
      });
    }
    const buf = Buffer.alloc(1024 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    const nl = text.indexOf('\n');
    return nl === -1 ? text : text.slice(0, nl);
  } finally {
    await fh.close();
  }
}
