import { isUtf8 } from 'node:buffer';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { logger } from '../../config/logger.js';
import { decodeName, displayName } from '../../snapshot/names.js';
import { writeFileAtomic } from '../atomic.js';
import type { MemoryPaths } from '../layout.js';
import { entryText, renderMemoryMd, type HandBlock, type HandbookInfo, type MemoryEntry } from '../memory-md.js';
import { handSectionsLine, renderSummary } from '../memory-summary-md.js';
import { normalizeText, sha256 } from '../normalize.js';
import { redact } from '../redact.js';
import { saveState, type MemoryState, type Written } from '../state.js';
import { estimateTokens } from '../tokens.js';
import { blockOverheadTokens } from '../read.js';
import { heldOutOfPrompt } from '../injection.js';
import { capEntries, entryTokens, rankEntries, scoreEntries, type RankContext } from './rank.js';
import { capOrder } from './cap-order.js';

const log = logger('memory');

/** Rendered handbook files plus what was left out for size. */
export interface RenderedHandbook {
  memoryMd: string;
  summaryMd: string;
  /** Entries in MEMORY.md, rank order. */
  entries: MemoryEntry[];
  /** Entries in memory_summary.md, rank order. */
  summary: MemoryEntry[];
  /** Entries ranked out of MEMORY.md by its token cap. */
  capped: MemoryEntry[];
  /**
   * Entries kept in MEMORY.md but not in memory_summary.md because the read path would leave them out of the
   * prompt anyway (`heldOutOfPrompt`: written by no run and telling to do something dangerous).
   */
  heldOut: MemoryEntry[];
}

/** Tokens of MEMORY.md around the entries (title, header, instructions, section headings). */
const MEMORY_OVERHEAD = 160;
const SUMMARY_OVERHEAD = 60;

/**
 * Ranks entries and renders MEMORY.md (cap `memoryMdTokens`) and memory_summary.md (cap `summaryTokens`, the
 * best-ranked entries of MEMORY.md). Entry texts are redacted once more on the way out. The cap keeps entries
 * in `capOrder` (the newest run's important lessons, a person's own entries newest first, the rest by rank);
 * `capped` lists what it left out (phase 2 archives and tombstones each and names it in the run's report).
 * `blocks` (a person's verbatim text, `parseMemoryMd`) are kept whole, redacted, and count against the MEMORY.md
 * cap before the entries do (never below half of it for entries): they have no rollout to come back from.
 * Entries the read path would keep out of the prompt (`heldOutOfPrompt`) are kept in MEMORY.md, listed in
 * `heldOut`, and never put in memory_summary.md.
 */
export function renderHandbook(entries: MemoryEntry[], info: HandbookInfo, ctx: RankContext, caps: { memoryMdTokens: number; summaryTokens: number }, blocks: HandBlock[] = []): RenderedHandbook {
  const clean = entries.map((e) => ({ ...e, text: redact(entryText(e.text)) }));
  const hand = blocks.map((b) => ({ ...b, lines: redact(b.lines.join('\n')).split('\n') }));
  const handTokens = estimateTokens(hand.map((b) => b.lines.join('\n')).join('\n\n'));
  const memoryCap = Math.max(caps.memoryMdTokens - handTokens, Math.floor(caps.memoryMdTokens / 2));
  const scores = scoreEntries(clean, ctx);
  const byRank = rankEntries(clean, scores);
  // The newest run's important lessons first, then a person's own entries newest first (they have no rollout
  // to come back from), then the rest by rank (issue 12): the oldest and least important go first.
  const position = new Map(entries.map((e, i) => [e.id, i]));
  const ordered = capOrder(byRank, position, memoryCap - MEMORY_OVERHEAD, entryTokens);
  const { kept: keptSet, dropped } = capEntries(ordered, memoryCap, MEMORY_OVERHEAD);
  const keep = new Set(keptSet);
  const kept = byRank.filter((e) => keep.has(e));
  // The prompt block wraps the summary in instructions: leave them room, so the block fits the same budget.
  const own = handSectionsLine(hand);
  const summaryCap = Math.max(caps.summaryTokens - blockOverheadTokens() - (own ? estimateTokens(own) : 0), Math.floor(caps.summaryTokens / 2));
  // What the read path would drop must not take the summary's room: 60 committed "always run `curl … | sh`"
  // bullets once filled it, and the prompt got no memory at all (trial 26 N13). They stay in MEMORY.md.
  const heldOut = kept.filter((e) => heldOutOfPrompt(e.text, e.sources));
  const servable = heldOut.length ? kept.filter((e) => !heldOut.includes(e)) : kept;
  const { kept: summary } = capEntries(servable, summaryCap, SUMMARY_OVERHEAD, (e) => estimateTokens(`- ${e.text} [${e.id}]\n`));
  return { memoryMd: renderMemoryMd(kept, info, hand), summaryMd: renderSummary(summary, info, hand), entries: kept, summary, capped: dropped, heldOut };
}

/** The record of a write: the file's hash and each entry's normalized text. */
export function writtenRecord(memoryMd: string, entries: MemoryEntry[]): Written {
  return {
    memoryMdHash: sha256(memoryMd),
    entries: Object.fromEntries(entries.map((e) => [e.id, normalizeText(e.text)])),
    edited: entries.filter((e) => e.edited).map((e) => e.id),
  };
}

/**
 * Writes the handbook crash-safely: the state first with the write as `pending`, then memory_summary.md,
 * then MEMORY.md (each atomically: temp file + rename), then the state with the write committed. A crash
 * or an error at any point leaves the previous MEMORY.md whole, and the next read can tell which one is on disk.
 * `state` is updated in place and saved.
 */
export async function writeHandbook(paths: MemoryPaths, state: MemoryState, rendered: RenderedHandbook): Promise<void> {
  state.pending = writtenRecord(rendered.memoryMd, rendered.entries);
  await saveState(paths.stateFile, state);
  await warnIfLink(paths.summaryMd);
  await warnIfLink(paths.memoryMd);
  await writeFileAtomic(paths.summaryMd, rendered.summaryMd);
  await writeFileAtomic(paths.memoryMd, rendered.memoryMd);
  state.written = state.pending;
  state.pending = null;
  await saveState(paths.stateFile, state);
}

/**
 * The handbook files are written by rename, which replaces a symlink (an agent's `MEMORY.md -> ../docs/notes.md`)
 * with a plain file and leaves its target as it was: said in a warning (printed by the CLI), not done silently.
 */
export async function linkWarning(file: string): Promise<string | undefined> {
  const st = await lstat(file).catch(() => null);
  if (!st?.isSymbolicLink()) return undefined;
  const target = await readlink(file).catch(() => '?');
  return `${basename(file)} was a symlink (to ${target}); consolidation replaces it with a plain file and leaves ${target} as it was`;
}

/** Logs `linkWarning`, when there is one. */
async function warnIfLink(file: string): Promise<void> {
  const warning = await linkWarning(file);
  if (warning) log.warn({ file }, warning);
}

/**
 * MEMORY.md's bytes as text. A hand edit in another encoding (latin-1 é is one byte 0xe9) decoded as UTF-8 turns
 * each such byte into U+FFFD and the rewrite loses it: each byte that is not UTF-8 is kept as the text `\xNN`
 * (its value, the form mnemara prints such bytes in everywhere). Every reader of MEMORY.md must decode the same
 * way, or the same file reads as two texts (phase 2's check for concurrent edits then "sees" an edit).
 */
export function decodeMemoryMd(bytes: Buffer): string {
  return isUtf8(bytes) ? bytes.toString('utf8') : displayName(decodeName(bytes));
}

/** MEMORY.md's text, or `null` when there is none. Bytes that are not UTF-8 come back as the text `\xNN` (logged as a warning). */
export async function readMemoryMd(paths: MemoryPaths): Promise<string | null> {
  const bytes = await readFile(paths.memoryMd).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (bytes === null) return null;
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const text = decodeMemoryMd(bytes);
  const count = (text.match(/\\x[89a-f][0-9a-f]/g) ?? []).length;
  log.warn({ file: paths.memoryMd, bytes: count }, 'MEMORY.md is not valid UTF-8: each byte that is not UTF-8 is kept as the text \\xNN; save the file as UTF-8 to keep the characters');
  return text;
}
