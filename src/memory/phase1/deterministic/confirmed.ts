import type { RawMemory } from '../../types.js';
import { CHANGED, ONE_OFF, clauses } from './durable.js';
import { lastAssistantText } from '../findings.js';
import type { RolloutView } from '../rollout.js';
import { clip, keywordsOf } from './text.js';

/**
 * What the user told the run about its environment, in any language, when the run saw it too (issue 12: a fact
 * read from structure, not from words): a clause of a message typed mid-run that names an absolute path outside
 * the workspace (`/opt/toolchains`, `/srv/cache`) which a tool output of this run printed, and which the agent's
 * final message names again. Never a question, a one-off clause, or one a list reads as a change (`changes.ts`
 * keeps those). Returns at most one `fact` per message (importance 4); empty when nothing qualifies.
 */
export function confirmedByRun(view: RolloutView): RawMemory[] {
  const final = lastAssistantText(view)?.text ?? '';
  const outputs = view.steps.map((s) => s.output ?? '').join('\n');
  const out: RawMemory[] = [];
  for (const said of view.said.filter((s) => s.role === 'user').slice(1)) {
    const kept = clauses(said.text).filter((c) => {
      if (/[?？]\s*$/.test(c) || ONE_OFF.test(c) || CHANGED.test(c)) return false;
      return pathsIn(c).some((p) => outputs.includes(p) && final.includes(p));
    });
    if (kept.length === 0) continue;
    const paths = kept.flatMap(pathsIn).filter((p) => outputs.includes(p));
    out.push({
      kind: 'fact',
      text: `The user said mid-run: “${clip(kept.join(' '), 400)}” (this run's output shows ${[...new Set(paths)].map((p) => `\`${p}\``).join(', ')})`,
      evidence: { lines: [said.line], quote: clip(kept.join(' '), 200) },
      importance: 4,
      keywords: keywordsOf([paths.join(' '), kept.join(' ')]),
    });
  }
  return out;
}

/** Absolute paths of at least two levels outside the workspace and /tmp (`/opt/toolchains`, not `/workspace/x`). */
function pathsIn(clause: string): string[] {
  return [...clause.matchAll(/(?<![\w.~$-])(\/[\w.-]+(?:\/[\w.-]+)+)/g)].map((m) => m[1]!.replace(/[.]+$/, '')).filter((p) => !/^\/(workspace|tmp|dev|proc)(\/|$)/.test(p));
}
