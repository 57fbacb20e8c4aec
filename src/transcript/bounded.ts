import { readTranscript, type RepairedLine } from './reader.js';
import type { NumberedRecord, SkippedLine, TranscriptRecord } from './schema.js';

export interface BoundedOptions {
  /** A string longer than this (characters) keeps its head and tail only. Default 64 Ki. */
  maxStringChars?: number;
  /** Characters of strings kept over all records. Default 8 Mi (two-byte strings: up to 16 MB). */
  budgetChars?: number;
}

/** What {@link loadTranscriptBounded} kept, and what it left out to stay in bounds. */
export interface BoundedTranscript {
  records: NumberedRecord[];
  skipped: SkippedLine[];
  repaired: RepairedLine[];
  /** Strings cut to head and tail. */
  clipped: number;
  /** Records left out from the middle of a transcript over the budget (their lines are gone from evidence). */
  dropped: number;
}

/**
 * `loadTranscript` for phase 1, in bounded memory whatever the transcript's size: streams the file; cuts each
 * string over `maxStringChars` to its head (a quarter) and tail (the rest: errors sit at the end of a log),
 * with a marker saying how much was left out; drops the verbatim payload of `unknown` records and the fragments
 * of `damaged` ones (phase 1 reads neither); and once the kept strings pass `budgetChars`, keeps the first
 * quarter of the budget and a sliding window over the rest, so the run's start (task, setup) and its end
 * (what finally worked, the outcome) stay. Line numbers are the file's, as in `loadTranscript`.
 * Same errors as `readTranscript`.
 */
export async function loadTranscriptBounded(path: string, options: BoundedOptions = {}): Promise<BoundedTranscript> {
  const maxString = options.maxStringChars ?? 64 * 1024;
  const budget = options.budgetChars ?? 8 * 1024 * 1024;
  const headBudget = Math.floor(budget / 4);
  const head: NumberedRecord[] = [];
  const tail: Array<{ r: NumberedRecord; size: number }> = [];
  let headSize = 0;
  let tailSize = 0;
  let tailStart = 0;
  const out: BoundedTranscript = { records: [], skipped: [], repaired: [], clipped: 0, dropped: 0 };
  const clip = (s: string): string => {
    if (s.length <= maxString) return s;
    out.clipped += 1;
    const h = Math.floor(maxString / 4);
    const t = maxString - h;
    return `${s.slice(0, h)}\n[… ${s.length - h - t} characters left out …]\n${s.slice(-t)}`;
  };
  for await (const n of readTranscript(path, { onSkip: (s) => out.skipped.push(s), onRepair: (r) => out.repaired.push(r) })) {
    const record = shrink(n.record, clip);
    const size = sizeOf(record);
    const item = { line: n.line, record };
    if (tail.length === tailStart && headSize + size <= headBudget) {
      head.push(item);
      headSize += size;
      continue;
    }
    tail.push({ r: item, size });
    tailSize += size;
    while (tailSize > budget - headSize && tailStart < tail.length - 1) {
      tailSize -= tail[tailStart]!.size;
      tail[tailStart] = undefined as never;
      tailStart += 1;
      out.dropped += 1;
    }
    // Compact the window now and then so the array does not keep growing.
    if (tailStart > 4096 && tailStart > tail.length / 2) {
      tail.splice(0, tailStart);
      tailStart = 0;
    }
  }
  out.records = [...head, ...tail.slice(tailStart).map((t) => t.r)];
  return out;
}

function shrink(r: TranscriptRecord, clip: (s: string) => string): TranscriptRecord {
  switch (r.type) {
    case 'message':
      return { ...r, text: clip(r.text) };
    case 'tool_result':
      return { ...r, output: clip(r.output) };
    case 'tool_call':
      return { ...r, input: clipDeep(r.input, clip) };
    case 'session_meta':
      return { ...r, task: clip(r.task), ...(r.system ? { system: clip(r.system) } : {}), ...(r.memoryBlock ? { memoryBlock: clip(r.memoryBlock) } : {}) };
    case 'unknown':
      return { ...r, raw: null };
    case 'damaged': {
      const { fragment: _f, ...rest } = r;
      return rest;
    }
    default:
      return r;
  }
}

function clipDeep(v: unknown, clip: (s: string) => string): unknown {
  if (typeof v === 'string') return clip(v);
  if (Array.isArray(v)) return v.map((x) => clipDeep(x, clip));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clipDeep(x, clip)]));
  return v;
}

function sizeOf(r: TranscriptRecord): number {
  switch (r.type) {
    case 'message':
      return r.text.length + 64;
    case 'tool_result':
      return r.output.length + 64;
    case 'tool_call':
      return JSON.stringify(r.input ?? null).length + 64;
    case 'session_meta':
      return r.task.length + (r.system?.length ?? 0) + 64;
    default:
      return 64;
  }
}
