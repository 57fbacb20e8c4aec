import type { RawMemory } from '../../types.js';
import { splitCommand, workSegments, type Segment } from '../commands.js';
import { lastAssistantText } from '../findings.js';
import { commandOf, type RolloutView, type Said } from '../rollout.js';
import { CHANGED, ONE_OFF, clauses, statesLastingRule } from './durable.js';
import { clip, keywordsOf } from './text.js';

/**
 * A command the user said is retired, in words no list knows (round 25: a Pashto "`mk-build-deps` … no longer
 * needed", an Igbo "we no longer use `make sim`"), read from what the run did with it: the user named it in a
 * code span (the task or a message typed mid-run), this run never ran it, and the agent's final message names
 * it only to say the run did without it ("no `mk-build-deps` step was needed", "…, not `make sim`"). The
 * agent writes its report in its own words; the user's language does not matter.
 *
 * Returns one `fact` per command (importance 5) whose "`X` is now obsolete" phase 2 (`staleTerms`) reads to
 * retire older entries naming X; never a preference (`echoed.ts` leaves such a clause alone). `known`: texts of
 * the run's other entries — a switch `left-behind.ts` already stated ("instead of `X`") is not said twice.
 */
export function commandsRetired(view: RolloutView, known: string[]): RawMemory[] {
  const out: RawMemory[] = [];
  const seen = new Set<string>();
  for (const said of view.said.filter((s) => s.role === 'user')) {
    for (const clause of clauses(said.text)) {
      for (const span of retiredIn(view, said, clause)) {
        if (seen.has(span) || known.some((k) => k.includes(`instead of \`${span}\``))) continue;
        seen.add(span);
        const part = negatingPart(finalAfter(view, said), span)!;
        out.push({
          kind: 'fact',
          text: `\`${span}\` is now obsolete in this repository (no longer needed or used): the user wrote “${clip(clause, 300)}”, and this run did without it (the agent's final message: “${clip(part, 200)}”).`,
          evidence: { lines: [said.line], quote: clip(clause, 200) },
          importance: 5,
          keywords: keywordsOf([span, 'obsolete']),
        });
      }
    }
  }
  return out;
}

/**
 * The code spans of `clause` (a message of the user) that it retires: a command the run never ran and the final
 * message names only beside a negation. Empty for a question, a one-off clause and a clause a list already reads
 * as a change (`changes.ts`) or a lasting rule (`preferences.ts`). Exported so that `echoed.ts` does not keep
 * the same clause as a rule.
 */
export function retiredIn(view: RolloutView, said: Said, clause: string): string[] {
  if (/[?？]\s*$/.test(clause) || ONE_OFF.test(clause) || CHANGED.test(clause) || statesLastingRule(clause)) return [];
  const final = finalAfter(view, said);
  if (!final) return [];
  return [...clause.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1]!.trim())
    .filter((span) => {
      const seg = commandForm(span);
      return seg !== undefined && !ranAnywhere(view, seg) && negatingPart(final, span) !== undefined && !affirmingPart(final, span);
    });
}

/**
 * The one command a span holds, when it reads as one: words with a space (`make sim`), or a single program name
 * (`mk-build-deps`). An API or a setting (`time.sleep`, `MAX_BACKOFF`) a user forbids is a rule, not a retirement.
 */
function commandForm(span: string): Segment | undefined {
  if (!/\s/.test(span) && !/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$|^[a-z][a-z0-9]{2,}$/.test(span)) return undefined;
  const segs = workSegments(splitCommand(span));
  return segs.length === 1 ? segs[0] : undefined;
}

/** The run ran the command anywhere (its key, or its program when the span is one word): it did not do without it. */
function ranAnywhere(view: RolloutView, seg: Segment): boolean {
  return view.steps.some((st) => workSegments(splitCommand(commandOf(st) ?? '')).some((r) => r.key === seg.key || (seg.args.length === 0 && r.program === seg.program)));
}

/** The last message of the agent after `said`. */
function finalAfter(view: RolloutView, said: Said): string {
  const last = lastAssistantText(view);
  return last && last.at > said.at ? last.text : '';
}

/** The agent's own words that drop a command, right around its code span. */
const NEGATION = /\b(no longer|not (needed|required|necessary)|unnecessary|unneeded|obsolete|retired|is gone|are gone|removed|dropped|instead of|rather than|replaced|without)\b/i;

/** The part of the final message (a clause) around `span` that drops it: "no `X` step was needed", "…, not `X`". */
function negatingPart(final: string, span: string): string | undefined {
  const tick = `\`${span}\``;
  return partsNaming(final, tick).find((p) => NEGATION.test(p) || new RegExp(`\\b(no|not)\\s+${escapeRe(tick)}`, 'i').test(p));
}

/** The final message also names the span in a part that says nothing against it: the run still uses it. */
function affirmingPart(final: string, span: string): boolean {
  const tick = `\`${span}\``;
  return partsNaming(final, tick).some((p) => !NEGATION.test(p) && !new RegExp(`\\b(no|not)\\s+${escapeRe(tick)}`, 'i').test(p));
}

function partsNaming(final: string, tick: string): string[] {
  // Parentheses keep their clause: "(so no `X` step was needed)" is one part with its negation.
  return final.split(/(?<=[.!?;。])\s+|\n+|[,;，、]/).filter((s) => s.includes(tick)).map((s) => s.trim());
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
