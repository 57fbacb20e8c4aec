import type { RawMemory } from '../../types.js';
import { commandOf, isEdit, succeeded, type RolloutView, type Said } from '../rollout.js';
import { CHANGED, ONE_OFF, clauses } from './durable.js';
import { clip, keywordsOf } from './text.js';
import { retiredIn } from './retired.js';

/**
 * A rule the user typed mid-run in a language no word list knows (round 24: Sardinian, Turkmen, Guarani,
 * Uyghur …), recognised by structure alone: a clause of a message after the task that names a tool, an API or
 * a setting in a code span (`regal lint policies/`, `time.sleep`, `runbook_url`, `# pragma version ~=0.4.0`)
 * which the agent's final message names again. A message typed mid-run is an interruption: its lasting rules
 * are what the agent carries to its summary, while its one-off orders in such runs name a file to leave alone
 * (`tests/run.py`, "the README") — so a span that is only a path or a file name never qualifies, nor a span the
 * final message says was left alone ("untouched"). A question, a clause said for this run (`ONE_OFF`) and a
 * message stating that the repository changed (`changes.ts`) keep nothing; neither does a span the task already
 * named (the final message repeats the task's words anyway).
 *
 * Returns one `preference` per message (importance 4), the clauses quoted; empty when none qualifies.
 */
export function echoedRules(view: RolloutView, message: Said): RawMemory[] {
  const final = [...view.said].reverse().find((s) => s.role === 'assistant' && s.at > message.at)?.text ?? '';
  if (!final) return [];
  const parts = clauses(message.text);
  if (parts.some((c) => CHANGED.test(c))) return [];
  const task = view.said.find((s) => s.role === 'user')?.text ?? view.task;
  const kept = parts.filter((clause) => {
    if (/[?？]\s*$/.test(clause) || ONE_OFF.test(clause) || renamed(view, toolSpans(clause))) return false;
    // A command the final message says the run did without is retired (`retired.ts`), not a rule to follow.
    if (retiredIn(view, message, clause).length > 0) return false;
    return toolSpans(clause).some((span) => !task.includes(span) && !onlyFailed(view, message.at, span) && (repeatedAsRule(final, span) || followedAgain(view, message.at, span)));
  });
  if (kept.length === 0) return [];
  const said = kept.map((c) => `“${clip(c, 400)}”`).join(' ');
  return [
    {
      kind: 'preference',
      text: `The user said mid-run: ${said}`,
      evidence: { lines: [message.line], quote: clip(message.text.trim(), 200) },
      importance: 4,
      keywords: keywordsOf([kept.flatMap(toolSpans).join(' '), kept.join(' ')]),
    },
  ];
}

/** Code spans that name a tool, an API or a setting: a command line (with a space), or one word that is not a path or a file name. */
export function toolSpans(clause: string): string[] {
  return [...clause.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1]!.trim())
    .filter((s) => s.length >= 3 && (/\s/.test(s) || (!/\//.test(s) && !/^[\w-]+\.(py|js|ts|rs|go|md|txt|json|ya?ml|toml|cfg|ini|lock|sh|c|h|cc|cpp|rb|java|kt|sol|vy|sls|rego|tf|xml|html|css)$/i.test(s))));
}

/** Every later command that ran `span` failed (`cargo nextest run` not installed): the run could not adopt it. */
function onlyFailed(view: RolloutView, after: number, span: string): boolean {
  const ran = view.steps.filter((st) => st.at > after && (commandOf(st) ?? '').includes(span));
  return ran.length > 0 && !ran.some((st) => succeeded(st));
}

/**
 * The run followed `span` in two later steps or more: commands that ran it, edits that wrote it (`#lang
 * racket/base` at the top of each new file). An order for this run is carried out once.
 */
function followedAgain(view: RolloutView, after: number, span: string): boolean {
  let times = 0;
  for (const step of view.steps) {
    if (step.at < after) continue;
    const cmd = commandOf(step);
    if (cmd ? cmd.includes(span) : isEdit(step) && count(String(step.input.new_str ?? step.input.file_text ?? ''), span) > count(String(step.input.old_str ?? ''), span)) times++;
  }
  return times >= 2;
}

/**
 * Two spans of the clause are a rename the run applied: an edit replaced one by the other ("`parse_cfg` を
 * `parse_config` にリネームして", "rename `cfg` to `conf`"). A rename is done once, never a rule.
 */
function renamed(view: RolloutView, spans: string[]): boolean {
  if (spans.length < 2) return false;
  return view.steps.some((step) => {
    // `sed -i 's/parse_cfg/parse_config/g'`: one command that names both.
    const cmd = commandOf(step);
    if (cmd) return spans.some((a) => cmd.includes(a) && spans.some((b) => b !== a && cmd.includes(b)));
    if (!isEdit(step)) return false;
    const before = String(step.input.old_str ?? '');
    const after = String(step.input.new_str ?? step.input.file_text ?? '');
    return spans.some((a) => count(after, a) < count(before, a) && spans.some((b) => b !== a && count(after, b) > count(before, b)));
  });
}

const count = (text: string, word: string): number => text.split(word).length - 1;

/** The final message names `span` outside a sentence that says it was left alone. */
function repeatedAsRule(final: string, span: string): boolean {
  // The part of the sentence around the span ("Set X (name unchanged), added a `runbook_url` annotation").
  const parts = final.split(/(?<=[.!?;。])\s+|\n+|[,;，、()]/).filter((s) => s.includes(span));
  return parts.some((s) => !LEFT_ALONE.test(s));
}

const LEFT_ALONE = /\b(renamed?|untouched|unchanged|left (it |them )?(alone|as (it|they) (is|are|was|were))|not (touched|changed|modified|edited)|did not (touch|change|modify|edit)|didn't (touch|change|modify|edit))\b/i;
