import type { RawMemory } from '../../types.js';
import { splitCommand, workSegments, type Segment } from '../commands.js';
import { lastAssistantText } from '../findings.js';
import { commandOf, succeeded, type RolloutView } from '../rollout.js';
import { CHANGED, ONE_OFF, clauses, statesLastingRule } from './durable.js';
import { clip, keywordsOf } from './text.js';

/**
 * A switch of the way to check the project, said in words no list knows (issue 12, kind 1: "anyị anaghị eji
 * `make sim` ọzọ"), read from what the run did: the user named a test or build command in a code span (`make sim`),
 * this run never ran it, after the message it checked the project with another command that passed, and the
 * agent's final message names the old command again (it took the message as a change, not as a passing remark).
 * Only messages typed mid-run (the task asks for work, it does not correct it); clauses said for this run,
 * questions, and those a list already reads as a change (`changes.ts`) or as a lasting rule (`preferences.ts`) are
 * left out, as is a span that is one word (a file to look at, not a way of running the checks).
 *
 * Returns at most one `fact` (importance 5): "… this run never ran `make sim`; it checked the project with
 * `python run.py` instead of `make sim`." The "instead of `X`" is what phase 2 (`staleTerms`) reads to retire
 * older entries naming the old command. Empty when nothing qualifies.
 */
export function commandsLeftBehind(view: RolloutView): RawMemory[] {
  const final = lastAssistantText(view)?.text ?? '';
  const ran = view.steps.flatMap((s) => workSegments(splitCommand(commandOf(s) ?? '')));
  // The task asks for work ("check that `make image` still builds"); a message typed mid-run corrects the run.
  for (const said of view.said.filter((s) => s.role === 'user').slice(1)) {
    for (const clause of clauses(said.text)) {
      if (/[?？]\s*$/.test(clause) || ONE_OFF.test(clause) || CHANGED.test(clause) || statesLastingRule(clause)) continue;
      for (const span of [...clause.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim())) {
        const old = checkOf(span);
        if (!old || !final.includes(span) || ran.some((r) => r.key === old.key || r.canonical.startsWith(old.canonical))) continue;
        const now = checkedAfter(view, said.at, old);
        if (!now) continue;
        return [
          {
            kind: 'fact',
            text: `The user wrote about \`${span}\`: “${clip(clause, 300)}” This run never ran \`${span}\`; it checked the project with \`${clip(now.text, 160)}\` instead of \`${span}\`.`,
            evidence: { lines: [said.line], quote: clip(clause, 200) },
            importance: 5,
            keywords: keywordsOf([span, now.key]),
          },
        ];
      }
    }
  }
  return [];
}

/** The single test or build command a code span holds, or undefined (a file, a flag, a sentence). */
export function checkOf(span: string): Segment | undefined {
  const segs = workSegments(splitCommand(span));
  // A bare file (`tests/test_rx.py`) is where to look, not a way of running the checks.
  return segs.length === 1 && segs[0]!.args.length > 0 && (segs[0]!.category === 'test' || segs[0]!.category === 'build') ? segs[0] : undefined;
}

/** The last working segment of a command that passed after `after`, other than `old`'s command and not an install. */
function checkedAfter(view: RolloutView, after: number, old: Segment): Segment | undefined {
  let found: Segment | undefined;
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (step.at < after || !cmd || !succeeded(step)) continue;
    const main = workSegments(splitCommand(cmd)).filter((s) => s.key !== old.key && ['test', 'build', 'other'].includes(s.category)).at(-1);
    if (main) found = main;
  }
  return found;
}
