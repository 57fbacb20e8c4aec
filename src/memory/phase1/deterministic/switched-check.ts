import type { RawMemory } from '../../types.js';
import { splitCommand, workSegments, type Segment } from '../commands.js';
import { lastAssistantText } from '../findings.js';
import { commandOf, succeeded, type RolloutView } from '../rollout.js';
import { CHANGED, ONE_OFF, clauses, statesLastingRule } from './durable.js';
import { checkOf } from './left-behind.js';
import { clip, keywordsOf } from './text.js';

/**
 * A switch of the way to check the project stated in words no list knows, that the run carried out (round 25: a
 * Sardinian "no impreamus prus `opa test` … cun `make test`"): one message of the user (the task or one typed
 * mid-run) names two checks of one kind in code spans, in two clauses: one (`opa test`) this run never ran, and
 * the agent's final message leaves out; the other (`make test`) the run ran and passed after the message, and the
 * final message names. What the run did and reported is the user's switch, whatever the language.
 * `left-behind.ts` covers the switch whose old command the final message names again.
 *
 * Returns at most one `fact` (importance 5): "… checked the project with `make test` instead of `opa test` …";
 * phase 2 (`staleTerms`) reads the "instead of `X`" and retires older entries naming X. `known`: the run's other
 * entries, so that a switch already stated is not said twice.
 */
export function checkSwitched(view: RolloutView, known: string[]): RawMemory[] {
  const final = lastAssistantText(view);
  if (!final) return [];
  const ran = view.steps.flatMap((s) => workSegments(splitCommand(commandOf(s) ?? '')));
  for (const said of view.said.filter((s) => s.role === 'user' && s.at < final.at)) {
    const parts = clauses(said.text).filter((c) => !/[?？]\s*$/.test(c) && !ONE_OFF.test(c) && !CHANGED.test(c) && !statesLastingRule(c));
    const checks = parts.flatMap((clause, i) => spansOf(clause).map((span) => ({ clause, i, span, seg: checkOf(span) })));
    for (const old of checks) {
      if (!old.seg || final.text.includes(`\`${old.span}\``) || ran.some((r) => r.key === old.seg!.key || r.canonical.startsWith(old.seg!.canonical))) continue;
      const now = checks.find((c) => c.seg && c.i !== old.i && c.seg.category === old.seg!.category && c.seg.key !== old.seg!.key && final.text.includes(`\`${c.span}\``) && passedAfter(view, said.at, c.seg));
      if (!now || known.some((k) => k.includes(`instead of \`${old.span}\``))) continue;
      const quoted = [old, now].sort((a, b) => a.i - b.i).map((c) => clip(c.clause, 200)).join(' … ');
      return [
        {
          kind: 'fact',
          text: `The user wrote “${quoted}”: this run checked the project with \`${now.span}\` (it passed) instead of \`${old.span}\`, which it never ran.`,
          evidence: { lines: [said.line], quote: clip(old.clause, 200) },
          importance: 5,
          keywords: keywordsOf([old.span, now.span]),
        },
      ];
    }
  }
  return [];
}

const spansOf = (clause: string): string[] => [...clause.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());

/** A command with the segment's key ran after `after` and passed. */
function passedAfter(view: RolloutView, after: number, seg: Segment): boolean {
  return view.steps.some((st) => st.at > after && succeeded(st) && workSegments(splitCommand(commandOf(st) ?? '')).some((r) => r.key === seg.key));
}
