import type { RawMemory } from '../../types.js';
import { isEdit, type RolloutView } from '../rollout.js';
import { ONE_OFF, clauses } from './durable.js';
import { toolSpans } from './echoed.js';
import { FORBIDS } from './source-comments.js';
import { clip, keywordsOf } from './text.js';

/** The wording phase 2 (`lifted-prohibitions.ts`) reads: "`X` is now allowed here". */
export const NOW_ALLOWED = 'is now allowed here';

/**
 * A prohibition the user lifted, in words no list knows (round 25: "now allowed for views" in a language none
 * covers), read from what the run did: a clause of the user's (the task or a message typed mid-run) names a setting
 * or an API in a code span (`runOnChange`), a comment of the repository this run read forbids it ("never use
 * runOnChange"), and an edit of this run after the message writes it into a file anyway. A run does not go against
 * its repository's own comment unless it was told to.
 *
 * Returns one `fact` per span (importance 4), "`X` is now allowed here …", which phase 2 reads to retire older
 * entries that forbid X. The comment is not quoted: its words are the retired rule.
 */
export function prohibitionsLifted(view: RolloutView): RawMemory[] {
  const out: RawMemory[] = [];
  for (const said of view.said.filter((s) => s.role === 'user')) {
    for (const clause of clauses(said.text)) {
      if (/[?？]\s*$/.test(clause) || ONE_OFF.test(clause)) continue;
      for (const span of toolSpans(clause).filter((s) => !/\s/.test(s))) {
        const file = writtenAfter(view, said.at, span);
        if (!file || !forbiddenInRead(view, said.at, span) || out.some((m) => m.text.startsWith(`\`${span}\``))) continue;
        out.push({
          kind: 'fact',
          text: `\`${span}\` ${NOW_ALLOWED}: the user wrote “${clip(clause, 300)}”, and this run used it in \`${file}\`.`,
          evidence: { lines: [said.line], quote: clip(clause, 200) },
          importance: 4,
          keywords: keywordsOf([span, file]),
        });
      }
    }
  }
  return out;
}

const count = (text: string, word: string): number => text.split(word).length - 1;

/** The first workspace file an edit after `after` wrote `span` into (more of it than the text it replaced). */
function writtenAfter(view: RolloutView, after: number, span: string): string | undefined {
  for (const step of view.steps) {
    if (step.at < after || !isEdit(step)) continue;
    const added = String(step.input.new_str ?? step.input.file_text ?? '');
    if (count(added, span) > count(String(step.input.old_str ?? ''), span)) return String(step.input.path).replace(/^\/workspace\//, '');
  }
  return undefined;
}

/** A comment line of something the run read (a view, a `cat`) names the span and forbids something. */
function forbiddenInRead(view: RolloutView, before: number, span: string): boolean {
  return view.steps.some((step) =>
    (step.output ?? '')
      .split('\n')
      .map((l) => l.replace(/^\s*\d+\t/, ''))
      .some((l) => /^\s*(?:\/\/+|#+|--|;+|\/\*+|\*|<!--)/.test(l) && l.includes(span) && FORBIDS.test(l.replace(/^\s*(?:\/\/+|#+|--|;+|\/\*+|\*|<!--)\s*/, ''))),
  );
}
