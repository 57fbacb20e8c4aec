import { stat } from 'node:fs/promises';
import { MnemaraError } from '../config/errors.js';
import { DEFAULT_MAX_LINE_BYTES, readRawLines } from './lines.js';
import { TranscriptRecordSchema, type NumberedRecord, type SkippedLine } from './schema.js';

/** A line that was kept but had to be mended (invalid UTF-8 bytes, lone surrogates), and how. */
export interface RepairedLine {
  line: number;
  reason: string;
}

export interface ReadTranscriptOptions {
  /** Called for every line that could not be used; reading goes on. */
  onSkip?: (skipped: SkippedLine) => void;
  /** Called for every line that was kept after mending (U+FFFD replacements). */
  onRepair?: (repaired: RepairedLine) => void;
  /** Per-line cap in bytes (default 64 MiB). A longer line is skipped without being held in memory. */
  maxLineBytes?: number;
}

const KNOWN_TYPES = new Set(['session_meta', 'message', 'tool_call', 'tool_result', 'session_end', 'unknown', 'damaged']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lossyUtf8 = new TextDecoder('utf-8', { fatal: false });
const LONE_SURROGATE_SRC = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE_SRC);
const LONE_SURROGATES = new RegExp(LONE_SURROGATE_SRC, 'g');

/**
 * Streams a transcript `sessions/<rollout-id>.jsonl` (format: `schema.ts`, DESIGN.md "Transcript") as
 * records numbered by their 1-based line. Memory stays bounded by the longest line (≤ `maxLineBytes`).
 * Damage never drops the transcript: a truncated or corrupt line, a non-object, an unknown record type,
 * a record failing its schema or an over-long line is skipped and reported through `onSkip` with its
 * line number; invalid UTF-8 and lone surrogates are replaced by U+FFFD and reported through `onRepair`.
 * Blank lines are ignored. U+2028/U+2029 are ordinary characters (lines end only at `\n`).
 * @throws MnemaraError `NOT_FOUND` when the file does not exist, `INVALID_INPUT` when it is not a file.
 */
export async function* readTranscript(path: string, options: ReadTranscriptOptions = {}): AsyncGenerator<NumberedRecord> {
  await assertFile(path);
  const { onSkip, onRepair, maxLineBytes = DEFAULT_MAX_LINE_BYTES } = options;
  for await (const raw of readRawLines(path, { maxLineBytes })) {
    if ('oversizedBytes' in raw) {
      onSkip?.({ line: raw.line, reason: `line of ${raw.oversizedBytes} bytes is over the ${maxLineBytes}-byte cap` });
      continue;
    }
    const result = parseLine(raw.bytes, raw.line === 1);
    if (result.kind === 'blank') continue;
    if (result.kind === 'skip') {
      const reason = raw.lastWithoutNewline ? `truncated last line (no newline at end): ${result.reason}` : result.reason;
      onSkip?.({ line: raw.line, reason });
      continue;
    }
    for (const reason of result.repairs) onRepair?.({ line: raw.line, reason });
    yield { line: raw.line, record: result.record };
  }
}

/** Everything `readTranscript` yields and reports, collected. Same errors as `readTranscript`. */
export async function loadTranscript(
  path: string,
  options: Omit<ReadTranscriptOptions, 'onSkip' | 'onRepair'> = {},
): Promise<{ records: NumberedRecord[]; skipped: SkippedLine[]; repaired: RepairedLine[] }> {
  const records: NumberedRecord[] = [];
  const skipped: SkippedLine[] = [];
  const repaired: RepairedLine[] = [];
  for await (const r of readTranscript(path, { ...options, onSkip: (s) => skipped.push(s), onRepair: (r2) => repaired.push(r2) })) {
    records.push(r);
  }
  return { records, skipped, repaired };
}

type LineResult =
  | { kind: 'blank' }
  | { kind: 'skip'; reason: string }
  | { kind: 'ok'; record: NumberedRecord['record']; repairs: string[] };

function parseLine(bytes: Buffer, first: boolean): LineResult {
  const repairs: string[] = [];
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    text = lossyUtf8.decode(bytes);
    repairs.push('invalid UTF-8 replaced by U+FFFD');
  }
  if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { kind: 'blank' };

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'skip', reason: `invalid JSON: ${short((err as Error).message)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'skip', reason: 'not a JSON object' };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) {
    return { kind: 'skip', reason: `unknown record type ${short(JSON.stringify(type ?? null))}` };
  }
  let surrogates = 0;
  const mended = mendStrings(value, () => (surrogates += 1));
  if (surrogates > 0) repairs.push(`${surrogates} string(s) with lone surrogates mended (U+FFFD)`);
  const parsed = TranscriptRecordSchema.safeParse(mended);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(record)';
    return { kind: 'skip', reason: `invalid ${type} record: ${where}: ${short(issue?.message ?? 'schema mismatch')}` };
  }
  return { kind: 'ok', record: parsed.data, repairs };
}

/** Replaces lone UTF-16 surrogates (from `\ud800`-style escapes) in every string of a parsed value. */
function mendStrings(value: unknown, onMend: () => void): unknown {
  if (typeof value === 'string') {
    if (!HAS_LONE_SURROGATE.test(value)) return value;
    onMend();
    return value.replace(LONE_SURROGATES, '\uFFFD');
  }
  if (Array.isArray(value)) return value.map((v) => mendStrings(v, onMend));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[mendStrings(k, onMend) as string] = mendStrings(v, onMend);
    return out;
  }
  return value;
}

function short(s: string, max = 160): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

async function assertFile(path: string): Promise<void> {
  try {
    const st = await stat(path);
    if (!st.isFile()) {
      throw new MnemaraError('INVALID_INPUT', `transcript ${path} is not a regular file`, {
        hint: 'Pass the path of a sessions/<rollout-id>.jsonl file.',
      });
    }
  } catch (err) {
    if (err instanceof MnemaraError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new MnemaraError('NOT_FOUND', `transcript ${path} does not exist`, {
        hint: 'Check the path; transcripts live in sessions/<rollout-id>.jsonl of the workspace.',
        cause: err,
      });
    }
    throw err;
  }
}
