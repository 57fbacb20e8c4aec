import { DEFAULT_MAX_LINE_BYTES, readRawLines } from './lines.js';

/** A damaged stretch of a JSONL file: where, how many bytes, why, and its start when small and textual. */
export interface Damage {
  line: number;
  bytes: number;
  reason: string;
  fragment?: string;
}

/** One item of a JSONL file as decoded: a JSON value (with the repairs it needed) or a damage stub. */
export type DecodedLine =
  | { line: number; value: unknown; bytes: number; surrogates: number; invalidUtf8: boolean; recovered: boolean }
  | { line: number; damage: Damage };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lossyUtf8 = new TextDecoder('utf-8', { fatal: false });
const LONE_SURROGATE_SRC = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE_SRC);
const LONE_SURROGATES = new RegExp(LONE_SURROGATE_SRC, 'g');
/** Start of damage kept as text in a stub (characters). */
const FRAGMENT_CHARS = 4096;
/** How many glue points a damaged line is searched for (each costs a JSON.parse of the rest). */
const MAX_GLUE_TRIES = 32;
/** Lines longer than this are not searched for glued records (bytes): the search would cost too much. */
const MAX_GLUE_SEARCH_BYTES = 16 * 1024 * 1024;

/**
 * Streams a JSONL file of any producer as decoded items, never dropping bytes silently (issue 13):
 * a BOM and blank lines are passed over; NUL runs (a crash leaves a file padded with zeros) become damage
 * stubs and the text around them is read on; a line that is not JSON is searched for a complete record glued
 * after a cut fragment (`{"type":"us{"type":"assistant",…}`), which is recovered; what remains is a stub with
 * its byte size and the parser's reason; a line over `maxLineBytes` (default 64 MiB) is a stub without ever
 * being held in memory. Invalid UTF-8 becomes U+FFFD, lone surrogates from `\ud800`-style escapes become
 * U+FFFD, both counted on the item. Memory is bounded by the longest line kept.
 * Throws the stream's error (ENOENT …) as is.
 */
export async function* decodeJsonl(path: string, { maxLineBytes = DEFAULT_MAX_LINE_BYTES }: { maxLineBytes?: number } = {}): AsyncGenerator<DecodedLine> {
  for await (const raw of readRawLines(path, { maxLineBytes })) {
    if ('oversizedBytes' in raw) {
      yield { line: raw.line, damage: { line: raw.line, bytes: raw.oversizedBytes, reason: `line of ${raw.oversizedBytes} bytes is over the ${maxLineBytes}-byte cap` } };
      continue;
    }
    yield* decodeLine(raw.bytes, raw.line, raw.lastWithoutNewline);
  }
}

/** Decodes one line's bytes (without `\n`) into values and damage stubs; see {@link decodeJsonl}. */
export function* decodeLine(bytes: Buffer, line: number, lastWithoutNewline = false): Generator<DecodedLine> {
  let start = 0;
  while (start < bytes.length) {
    const nul = bytes.indexOf(0, start);
    const end = nul === -1 ? bytes.length : nul;
    if (end > start) yield* decodePiece(bytes.subarray(start, end), line, lastWithoutNewline && end === bytes.length, start > 0);
    if (nul === -1) break;
    let stop = nul;
    while (stop < bytes.length && bytes[stop] === 0) stop += 1;
    yield { line, damage: { line, bytes: stop - nul, reason: 'run of NUL bytes' } };
    start = stop;
  }
}

function* decodePiece(bytes: Buffer, line: number, cut: boolean, afterDamage: boolean): Generator<DecodedLine> {
  let invalidUtf8 = false;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    text = lossyUtf8.decode(bytes);
    invalidUtf8 = true;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return;
  const whole = tryParse(text);
  if (whole.ok) {
    yield item(line, whole.value, bytes.length, invalidUtf8, afterDamage);
    return;
  }
  const why = cut ? `cut last line (no newline at end): ${whole.error}` : whole.error;
  if (bytes.length <= MAX_GLUE_SEARCH_BYTES) {
    let tries = 0;
    for (let i = text.indexOf('{', 1); i > 0 && tries < MAX_GLUE_TRIES; i = text.indexOf('{', i + 1)) {
      if (text[i + 1] !== '"') continue;
      tries += 1;
      const rest = tryParse(text.slice(i));
      if (!rest.ok) continue;
      const head = text.slice(0, i);
      const before = tryParse(head);
      if (before.ok) yield item(line, before.value, Buffer.byteLength(head), invalidUtf8, true);
      else yield { line, damage: stub(line, head, 'cut fragment before a complete record') };
      yield item(line, rest.value, Buffer.byteLength(text) - Buffer.byteLength(head), invalidUtf8, true);
      return;
    }
  }
  yield { line, damage: stub(line, text, why, bytes.length) };
}

function stub(line: number, text: string, reason: string, bytes = Buffer.byteLength(text)): Damage {
  return { line, bytes, reason, fragment: mendSurrogates(text.slice(0, FRAGMENT_CHARS), () => {}) };
}

function item(line: number, parsed: unknown, bytes: number, invalidUtf8: boolean, recovered: boolean): DecodedLine {
  let surrogates = 0;
  const value = mendDeep(parsed, () => (surrogates += 1));
  return { line, value, bytes, surrogates, invalidUtf8, recovered };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const m = (err as Error).message;
    return { ok: false, error: `invalid JSON: ${m.length > 160 ? `${m.slice(0, 160)}…` : m}` };
  }
}

/** Replaces lone UTF-16 surrogates by U+FFFD, calling `onMend` once per string mended. */
export function mendSurrogates(s: string, onMend: () => void): string {
  if (!HAS_LONE_SURROGATE.test(s)) return s;
  onMend();
  return s.replace(LONE_SURROGATES, '\uFFFD');
}

/** {@link mendSurrogates} over every string (keys too) of a parsed JSON value; unchanged values are returned as is. */
export function mendDeep(value: unknown, onMend: () => void): unknown {
  if (typeof value === 'string') return mendSurrogates(value, onMend);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const m = mendDeep(v, onMend);
      if (m !== v) changed = true;
      return m;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const mk = mendSurrogates(k, onMend);
      const mv = mendDeep(v, onMend);
      if (mk !== k || mv !== v) changed = true;
      out[mk] = mv;
    }
    return changed ? out : value;
  }
  return value;
}
