import type { Damage, DecodedLine } from '../decode.js';
export type { Outcome } from '../schema.js';
import type { Outcome, SessionEnd, SessionMeta, TranscriptRecord, TranscriptSource, Usage } from '../schema.js';

type Body = Exclude<TranscriptRecord, SessionMeta | SessionEnd>;
/** A body record as an importer yields it: `v` is filled in, `ts` defaults to the last time seen. */
export type Draft = Body extends infer R ? (R extends Body ? Omit<R, 'v' | 'ts'> & { ts?: string } : never) : never;

/** Yielded by an importer between two rollouts of one file (an Aider history holds one chat per start). */
export const SPLIT = Symbol('split');
export type ImportEvent = Draft | typeof SPLIT;

/** What an importer learns about the rollout it is reading; the store turns it into `session_meta`/`session_end`. */
export interface RolloutMeta {
  /** The format's own id of the run (session id …). Unsafe characters are hashed away; absent = from content. */
  id?: string;
  /** Content the rollout id is derived from when the format has no id (default: the file's first 4 KiB). */
  idSeed?: string;
  conversationId?: string;
  task?: string;
  model?: string;
  system?: string;
  memoryBlock?: string;
  /** ISO 8601 UTC; default: the first record's time. */
  startedAt?: string;
  endedAt?: string;
  /**
   * The format's own status of the run. Absent: derived by the store (`ended.ts`): `interrupted` when the file is
   * cut, `error` when the agent ends saying it did not get the task done after a failure, else `completed`.
   */
  outcome?: Outcome;
  error?: string;
  usage: Usage;
  versions: Record<string, string>;
  /** Default: the importer's format (mnemara's own transcripts keep the source they name). */
  source?: TranscriptSource;
}

/** Counts of one import (a file), for the `learn` table. */
export interface ImportStats {
  /** Source records (lines, items, events) read. */
  sourceRecords: number;
  /** Transcript records written (all rollouts, `session_meta`/`session_end` included). */
  records: number;
  /** Source records and blocks kept verbatim (`unknown` records) because no importer rule maps them, by type. */
  unknown: Record<string, number>;
  /** Source records known to carry nothing to learn from (token counts, snapshots …), kept verbatim, by type. */
  verbatim: Record<string, number>;
  /** Damage stubs, by reason (reasons shortened to their kind), and their bytes. */
  damaged: Record<string, number>;
  damagedBytes: number;
  /** Complete records recovered from a line glued to damage. */
  recovered: number;
  /** Strings with lone surrogates mended (U+FFFD). */
  surrogates: number;
  /** Lines with invalid UTF-8 mended. */
  invalidUtf8: number;
}

export function emptyStats(): ImportStats {
  return { sourceRecords: 0, records: 0, unknown: {}, verbatim: {}, damaged: {}, damagedBytes: 0, recovered: 0, surrogates: 0, invalidUtf8: 0 };
}

/** What the importer reads: the file, decoded as the format needs. */
export interface ImportSource {
  path: string;
  /** The file's modification time, ISO 8601: stands in for times the format does not record. */
  mtime: string;
  /** JSONL items (values and damage stubs), streamed; counts repairs into the stats. */
  lines(): AsyncGenerator<DecodedLine>;
  /** The whole file as one JSON value (JSON-document formats; capped, see `MAX_DOCUMENT_BYTES`). */
  document(): Promise<unknown>;
  /** Text lines (Markdown formats), streamed. */
  textLines(): AsyncGenerator<{ line: number; text: string; cut?: boolean }>;
  /** Files beside this one (a Claude Code subagent's `meta.json`), read small; undefined when absent. */
  sibling(name: string): Promise<string | undefined>;
}

/** Helpers the store hands every importer: the current rollout's meta and record makers that count. */
export interface ImportContext {
  meta: RolloutMeta;
  stats: ImportStats;
  /** A source record/block no rule maps: counted by `sourceType` and kept verbatim. */
  unknown(sourceType: string, raw: unknown, sourceLine?: number, ts?: string): Draft;
  /** A source record known to carry nothing to learn from: kept verbatim, counted apart from unknown ones. */
  verbatim(sourceType: string, raw: unknown, sourceLine?: number, ts?: string): Draft;
  /** A damage stub. */
  damaged(d: Damage): Draft;
}

/** How a file looked to the detector (the first items of a JSONL file, a whole JSON document, or text). */
export type Probe =
  | { kind: 'jsonl'; values: unknown[] }
  | { kind: 'json'; doc: unknown }
  | { kind: 'text'; head: string; /** Set when the file starts like a JSON document that does not parse (cut short …). */ jsonError?: string };

/** One foreign format. `detect` decides by content; `read` yields body records in order. */
export interface Importer {
  format: TranscriptSource;
  /** Human name for messages and tables. */
  title: string;
  detect(probe: Probe): boolean;
  read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent>;
}

/** A plain object, or undefined: for reading untyped JSON safely. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
/** ISO 8601 of a time given as ISO text or epoch seconds/ms; undefined when unreadable. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v > 1e12 ? v : v * 1000).toISOString();
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) || !/T/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}
/** Text of a message content: a string, or blocks with `text` (`input_text`, `output_text`, `text`). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (typeof b === 'string' ? b : str(obj(b)?.text) ?? ''))
    .filter((t) => t !== '')
    .join('\n');
}
/** A JSON string argument parsed when it is JSON, else `{ raw }`. */
export function parseArgs(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? {};
  try {
    return JSON.parse(v);
  } catch {
    return { raw: v };
  }
}
/** A shell command given as an argv (`["bash","-lc","ls"]`) or a string, as one command line. */
export function commandLine(v: unknown): string {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) return '';
  const argv = v.map(String);
  if (argv.length >= 3 && /(^|\/)(ba|z)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv.slice(2).join(' ');
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

const FAILURE_SIGNS = /Traceback \(most recent call last\)|^\w*Error\b|^\s*(error|ERROR)(\[\w+\])?:|^E\s{2,}|\b[1-9]\d* (failed|errors?)\b|command not found|No such file or directory|npm ERR!|^FAILED\b|^fatal:|Permission denied/m;

/**
 * For formats that record no exit status (SWE-agent, Aider): whether a command's output shows that it
 * failed. Only `isError` is set from this; `exitCode` stays absent (unknown).
 */
export function outputLooksFailed(output: string): boolean {
  return FAILURE_SIGNS.test(output.length > 20_000 ? output.slice(-20_000) : output);
}
