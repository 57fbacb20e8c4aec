import { estimateTokens } from '../tokens.js';
import { commandOf, type RolloutView } from './rollout.js';

/** Default context window of the extraction model (tokens). */
export const DEFAULT_CONTEXT_TOKENS = 200_000;
/** Share of the context window the transcript may fill; the rest is prompt, output and margin. */
const TRANSCRIPT_SHARE = 0.6;
/** Per tool output: characters kept from its start and from its end (decisive errors come last). */
const OUTPUT_HEAD = 1_500;
const OUTPUT_TAIL = 3_500;

/** One part of a transcript for one model call. */
export interface TranscriptChunk {
  /** The part as fenced data, `<transcript rollout=… part=…>…</transcript>`. */
  text: string;
  /** Estimated tokens of `text` (`estimateTokens`). */
  tokens: number;
  /** The rendered entries it holds (for splitting it further). */
  entries: string[];
  /** Transcript lines of its first and last entry. */
  firstLine: number;
  lastLine: number;
}

/** The transcript budget (tokens) for a model with `contextTokens` of context. */
export function transcriptBudget(contextTokens = DEFAULT_CONTEXT_TOKENS): number {
  return Math.max(2_000, Math.floor(contextTokens * TRANSCRIPT_SHARE));
}

/**
 * Renders a filtered, redacted rollout for the model as numbered entries (`L<line> user: …`,
 * `L<line> $ <command>`, `L<line> → exit 1: <output>`), fenced as data, in consecutive parts of at most
 * `budgetTokens` (estimated) each: nothing in the middle is cut (issue 12). Each tool output keeps its start and
 * its end with a visible marker in between; a single entry larger than the budget is clipped in its middle the
 * same way. A transcript that fits is one part.
 */
export function chunkTranscript(view: RolloutView, budgetTokens: number): TranscriptChunk[] {
  const maxEntryChars = Math.max(400, budgetTokens * 3);
  const entries = toEntries(view).map((e) => (estimateTokens(e) > budgetTokens - 60 ? clipMiddle(e, Math.floor(maxEntryChars * 0.3), Math.floor(maxEntryChars * 0.6)) : e));
  const groups: string[][] = [];
  let cur: string[] = [];
  let used = 0;
  for (const e of entries) {
    const cost = estimateTokens(e) + 1;
    if (cur.length && used + cost > budgetTokens - 40) {
      groups.push(cur);
      cur = [];
      used = 0;
    }
    cur.push(e);
    used += cost;
  }
  if (cur.length) groups.push(cur);
  return groups.map((g) => fenceChunk(view.rolloutId, g));
}

/**
 * Splits a chunk in two halves of its entries (a one-entry chunk: its entry clipped to half its length).
 * Returns null when it cannot get smaller (one entry of at most `minChars` characters).
 */
export function splitChunk(rolloutId: string, chunk: TranscriptChunk, minChars = 1_000): TranscriptChunk[] | null {
  if (chunk.entries.length >= 2) {
    const mid = Math.ceil(chunk.entries.length / 2);
    return [chunk.entries.slice(0, mid), chunk.entries.slice(mid)].map((g) => fenceChunk(rolloutId, g));
  }
  const only = chunk.entries[0] ?? '';
  if (only.length <= minChars) return null;
  const half = Math.floor(only.length / 2);
  return [fenceChunk(rolloutId, [clipMiddle(only, Math.floor(half * 0.3), Math.floor(half * 0.6), 0)])];
}

function fenceChunk(rolloutId: string, entries: string[]): TranscriptChunk {
  const text = `<transcript rollout="${rolloutId}">\n${entries.join('\n')}\n</transcript>`;
  const lines = entries.flatMap((e) => [...e.matchAll(/^L(\d+) /gm)].map((m) => Number(m[1])));
  return { text, tokens: estimateTokens(text), entries, firstLine: lines[0] ?? 0, lastLine: lines.at(-1) ?? 0 };
}

function toEntries(view: RolloutView): string[] {
  type Ev = { at: number; text: string };
  const evs: Ev[] = [];
  if (!view.said.some((s) => s.role === 'user')) evs.push({ at: -1, text: `L${view.records[0]?.line ?? 1} task: ${fence(view.task)}` });
  for (const s of view.said) evs.push({ at: s.at, text: `L${s.line} ${s.role}: ${fence(s.text)}` });
  for (const step of view.steps) {
    const cmd = commandOf(step);
    const call = cmd ? `$ ${cmd}` : `${step.name} ${JSON.stringify(step.input).slice(0, 600)}`;
    let text = `L${step.callLine} ${fence(call)}`;
    if (step.resultLine !== undefined) {
      const status = step.exitCode !== undefined && step.exitCode !== null ? `exit ${step.exitCode}` : step.isError ? 'error' : 'ok';
      text += `\nL${step.resultLine} → ${status}: ${fence(clipMiddle(step.output ?? ''))}`;
    } else {
      text += '\n(no result recorded)';
    }
    evs.push({ at: step.at, text });
  }
  evs.sort((a, b) => a.at - b.at);
  const outcome = `outcome: ${view.outcome}`;
  return [...evs.map((e) => e.text), outcome];
}

/** Keeps the start and the end of a long output with a visible marker (`slack`: length over head + tail left whole). */
export function clipMiddle(text: string, head = OUTPUT_HEAD, tail = OUTPUT_TAIL, slack = 200): string {
  if (text.length <= head + tail + slack) return text;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters cut …]\n${text.slice(-tail)}`;
}

/** Data may not close our fence. */
function fence(text: string): string {
  return text.replace(/<\/?transcript\b/gi, (m) => m.replace('<', '‹'));
}
