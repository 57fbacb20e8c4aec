import type { RawMemory } from '../../types.js';
import { CONSTRAINT, runFindings } from '../findings.js';
import type { RolloutView } from '../rollout.js';
import { clip, keywordsOf } from './text.js';

/**
 * What a failed or partial run found out about its environment (issue 12, item 3): the constraints it hit
 * ("this sandbox has no network", "sudo needs a password", "/data is not readable"), in the agent's own
 * whole sentences. They outlive the unfinished task:
 * the next run on any task meets the same environment. One `fact` per run; the plan and the task itself
 * stay in the `task_state` entry (`unfinishedTask`), which leaves these sentences out.
 */
export function runConstraints(view: RolloutView): RawMemory[] {
  const found = constraintSentences(view);
  if (found.length === 0) return [];
  const said = found.join(' ');
  return [
    {
      kind: 'fact',
      text: `${CONSTRAINT_FACT} (${clip(view.task, 80).replace(/[.。\s]+$/u, '')}): “${said}”`,
      evidence: { lines: [view.records[0]?.line ?? 1] },
      importance: 4,
      keywords: keywordsOf([said]),
    },
  ];
}

/** How a constraint fact begins: phase 2 knows it by this (`supersede.ts` lifts it when a later run got through). */
export const CONSTRAINT_FACT = 'Found by a run that did not finish';

/** Outcomes of a run that did not complete (the same set `unfinishedTask` reports). */
const UNFINISHED = new Set(['max_turns', 'budget', 'interrupted', 'error', 'unknown']);

/**
 * The finding sentences (`runFindings`) that state a constraint of the environment and not a plan, within 500
 * characters, in transcript order. Empty for a run that completed.
 */
export function constraintSentences(view: RolloutView): string[] {
  if (!UNFINISHED.has(view.outcome)) return [];
  const out: string[] = [];
  let used = 0;
  for (const s of runFindings(view)) {
    if (PLAN.test(s) || !CONSTRAINT.test(s)) continue;
    if (used + s.length > 500) break;
    used += s.length + 1;
    out.push(s);
  }
  return out;
}

/** A sentence that lays out what to do next: it belongs to the unfinished task, not to the environment. */
const PLAN = /^\s*(?:(?:plan|next(?: steps?)?|todo|to do|nächste|als nächstes|próximos? pasos?|siguiente|prochaines? étapes?|próximos passos)\b|下一步|接下来|次の手順|次に|다음|\(?\d[.)]\s)/i;
