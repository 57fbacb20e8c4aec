import type { RawMemory } from '../../types.js';
import { CONSTRAINT, lastAssistantText, runFindings, sentencesOf } from '../findings.js';
import { citesRunEvidence } from '../evidence.js';
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
  // A line the agent itself labelled as the environment ("- Environment: …", "環境の制約: …") is kept whole:
  // its workaround ("… is installed at /usr/lib/go-1.22: `export PATH=…`") is the part worth most.
  const labelled = (lastAssistantText(view)?.text ?? '')
    .split('\n')
    .filter((l) => ENV_LABEL.test(l))
    .flatMap((l) => sentencesOf(l.replace(ENV_LABEL, '')));
  for (const s of labelled) {
    if (used + s.length > 500) break;
    used += s.length + 1;
    out.push(s);
  }
  const final = new Set(sentencesOf(lastAssistantText(view)?.text ?? ''));
  for (const s of runFindings(view)) {
    if (out.some((o) => o.includes(s) || s.includes(o))) continue;
    if (PLAN.test(s) || !(CONSTRAINT.test(s) || (final.has(s) && citesRunEvidence(view, s)))) continue;
    if (used + s.length > 500) break;
    used += s.length + 1;
    out.push(s);
  }
  return out;
}

/** A line of the agent's final message labelled as being about the environment, in several languages. */
const ENV_LABEL = /^\s*(?:[-*•]|\d+[.)])?\s*(?:\*\*)?(?:environment|env|sandbox|constraints?|umgebung|einschränkungen?|entorno|restricciones?|environnement|contraintes?|ambiente|vincoli|omgeving|środowisko|окружение|среда|miljö|miljø|prostředí|середовище|ortam|lingkungan|môi trường|περιβάλλον|वातावरण|परिवेश|环境(?:限制|约束)?|環境(?:の制約)?|환경(?:\s*제약)?)(?:\*\*)?\s*[:：]\s*/i;

/** A sentence that lays out what to do next: it belongs to the unfinished task, not to the environment. */
const PLAN = /^\s*(?:(?:plan|next(?: steps?)?|todo|to do|nächste|als nächstes|próximos? pasos?|siguiente|prochaines? étapes?|próximos passos|plán|rencana|kế hoạch|nästa steg|næste skridt|neste steg|další kroky|sonraki adım\w*|langkah berikutnya|bước tiếp theo)(?![\wÀ-ɏḀ-ỿ])|^\s*(?:план|наступні кроки|επόμενα βήματα|अगले कदम|योजना)|下一步|接下来|次の手順|次に|다음|\(?\d[.)]\s)/i;
