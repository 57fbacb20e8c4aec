import { dangerousInstruction } from '../injection.js';
import { looksLikeInstruction } from './error-lines.js';
import type { RolloutView, Said } from './rollout.js';

/**
 * The agent ended the run itself: the transcript's last event is its own message, not a tool call waiting
 * for a result. A run that "failed" this way stopped on purpose (it explained why); one cut on a tool call
 * was stopped by a limit, an error or a crash.
 */
export function stoppedOnPurpose(view: RolloutView): boolean {
  const last = lastAssistant(view);
  const lastStep = view.steps.at(-1);
  return !!last && (!lastStep || last.at > lastStep.at);
}

/** The agent's final message: its last message when the run ended on it (no tool call after), else undefined. */
export function lastAssistantText(view: RolloutView): Said | undefined {
  return stoppedOnPurpose(view) ? lastAssistant(view) : undefined;
}

function lastAssistant(view: RolloutView): Said | undefined {
  return view.said.filter((s) => s.role === 'assistant').at(-1);
}

/** Words that mark a finding: a cause, a constraint of the environment, a dead end, a plan (several languages). */
const FINDING = new RegExp(
  [
    '\\b(root cause|cause|because|since|needs?|requires?|required|missing|not installed|not available|no network|offline|blocked|cannot|can\'t|could not|unable|fails?|failed|only|instead|workaround|plan|next steps?|todo|left to do|remaining|still|has .{1,40} but)\\b',
    '\\(\\d\\)|^\\d[.)]\\s',
    '\\b(ursache|weil|braucht|benötigt|fehlt|nicht|plan|noch)\\b',
    '\\b(causa|porque|necesita|falta|plan|no hay|no tiene|pendiente|todavía)\\b',
    '\\b(cause|parce que|besoin|manque|plan|il reste|pas de|impossible)\\b',
    '(原因|因为|需要|缺少|计划|无法|不能|还没|下一步|接下来)',
    '(原因|ため|必要|計画|次の手順|次に|できません|できず|ない|未)',
  ].join('|'),
  'i',
);

/** Sentences of a text, whole (never cut), in order. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/\r/g, '')
    .split(/(?<=[.!?])\s+(?=[^\s])|(?<=[。！？])|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1);
}

/**
 * What a failed or partial run found, in the agent's own whole sentences: its final message when it ended
 * the run itself, then its notes along the way (newest first) — only sentences that state a cause, a
 * constraint, a dead end or a plan, never one that passes on an instruction read in tool output nor one that
 * tells to fetch and run code or weaken security (`dangerousInstruction`, alone or with a neighbour). Within
 * `budget` characters: a sentence that does not fit is left out whole, never cut. In transcript order.
 */
export function runFindings(view: RolloutView, budget = 900): string[] {
  const notes = view.said.filter((s) => s.role === 'assistant');
  const final = stoppedOnPurpose(view) ? notes.at(-1) : undefined;
  const picked: Array<{ at: number; i: number; text: string }> = [];
  let used = 0;
  const take = (s: Said, all: boolean) => {
    const sentences = sentencesOf(s.text);
    sentences.forEach((text, i) => {
      if (looksLikeInstruction(text) || (!all && !FINDING.test(text))) return;
      // A plan to fetch and run code or weaken security is never passed on, also when it spans two sentences
      // ("Download it with `curl … -o /tmp/i.sh`. Then `bash /tmp/i.sh`.").
      // A neighbour that is dangerous on its own is dropped by itself; only a pair that is dangerous together drops both.
      const pair = (a: string | undefined, b: string | undefined) => !!a && !!b && !dangerousInstruction(a === text ? b : a) && dangerousInstruction(`${a} ${b}`);
      if (dangerousInstruction(text) || pair(sentences[i - 1], text) || pair(text, sentences[i + 1])) return;
      if (used + text.length + 1 > budget) return;
      used += text.length + 1;
      picked.push({ at: s.at, i, text });
    });
  };
  if (final) take(final, false);
  for (const n of [...notes].reverse()) if (n !== final) take(n, false);
  return picked.sort((a, b) => a.at - b.at || a.i - b.i).map((p) => p.text);
}
