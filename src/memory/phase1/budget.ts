import { estimateTokens } from '../tokens.js';
import { commandOf, type RolloutView } from './rollout.js';

/** Default context window of the extraction model (tokens). */
export const DEFAULT_CONTEXT_TOKENS = 200_000;
/** Share of the context window the transcript may fill; the rest is prompt, output and margin. */
const TRANSCRIPT_SHARE = 0.6;
/** Per tool output: characters kept from its start and from its end (decisive errors come last). */
const OUTPUT_HEAD = 1_500;
const OUTPUT_TAIL = 3_500;
/** Of the transcript budget, the share given to its beginning; the rest goes to its end. */
const HEAD_SHARE = 0.35;

export interface RenderedTranscript {
  /** The transcript as fenced data, `<transcript>…</transcript>`. */
  text: string;
  /** Estimated tokens of `text` (`estimateTokens`). */
  tokens: number;
  /** Entries left out in the middle to fit the budget (0 when it fit). */
  cutEntries: number;
}

/** The transcript budget (tokens) for a model with `contextTokens` of context. */
export function transcriptBudget(contextTokens = DEFAULT_CONTEXT_TOKENS): number {
  return Math.max(2_000, Math.floor(contextTokens * TRANSCRIPT_SHARE));
}

/**
 * Renders a filtered, redacted rollout for the model as numbered entries (`L<line> user: …`,
 * `L<line> $ <command>`, `L<line> → exit 1: <output>`), fenced as data. Each tool output keeps its start
 * and its end with a visible marker in between; when the whole is over `budgetTokens`, the beginning and
 * the end are kept and a visible marker says how many entries were cut from the middle.
 */
export function renderTranscript(view: RolloutView, budgetTokens: number): RenderedTranscript {
  const entries = toEntries(view);
  const costs = entries.map((e) => estimateTokens(e) + 1);
  const total = costs.reduce((a, b) => a + b, 0);
  let kept = entries;
  let cutEntries = 0;
  if (total > budgetTokens) {
    const headBudget = Math.floor(budgetTokens * HEAD_SHARE);
    const tailBudget = budgetTokens - headBudget - 50;
    let head = 0;
    let used = 0;
    while (head < entries.length && used + costs[head]! <= headBudget) used += costs[head++]!;
    let tail = entries.length;
    used = 0;
    while (tail > head && used + costs[tail - 1]! <= tailBudget) used += costs[--tail]!;
    cutEntries = tail - head;
    const cutTokens = costs.slice(head, tail).reduce((a, b) => a + b, 0);
    kept = [
      ...entries.slice(0, head),
      `[… ${cutEntries} transcript entries (about ${cutTokens} tokens) cut here to fit the model's context budget …]`,
      ...entries.slice(tail),
    ];
  }
  const text = `<transcript rollout="${view.rolloutId}">\n${kept.join('\n')}\n</transcript>`;
  return { text, tokens: estimateTokens(text), cutEntries };
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

/** Keeps the start and the end of a long output with a visible marker. */
export function clipMiddle(text: string, head = OUTPUT_HEAD, tail = OUTPUT_TAIL): string {
  if (text.length <= head + tail + 200) return text;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters cut …]\n${text.slice(-tail)}`;
}

/** Data may not close our fence. */
function fence(text: string): string {
  return text.replace(/<\/?transcript\b/gi, (m) => m.replace('<', '‹'));
}
