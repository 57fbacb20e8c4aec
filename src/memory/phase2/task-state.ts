import { readFile } from 'node:fs/promises';
import { parseRolloutSummary } from '../artifacts.js';
import type { MemoryPaths } from '../layout.js';
import { contentTokens, similarity } from '../normalize.js';
import type { RolloutInput } from './inputs.js';
import type { Candidate } from './merge.js';

/** What phase 2 needs of a rollout summary: its task and outcome, and its place (0 = newest). */
export interface RolloutOutcome {
  rolloutId: string;
  order: number;
  task: string;
  outcome: string;
  /** Commands the rollout ran that exited 0 (from the summary's `Tried`: "`cmd` → exit 0"). */
  passed: string[];
  /** Every command that exited 0, also those whose output looked like a failure ("→ exit 0 (but …)"). */
  exited0: string[];
}

/** Tasks and outcomes of the kept rollouts, from their rollout summaries (a missing or damaged one is skipped). */
export async function loadOutcomes(paths: MemoryPaths, kept: RolloutInput[]): Promise<RolloutOutcome[]> {
  const out: RolloutOutcome[] = [];
  for (const [order, r] of kept.entries()) {
    const text = await readFile(paths.rolloutSummary(r.rolloutId), 'utf8').catch(() => null);
    if (text === null) continue;
    try {
      const { meta, summary } = parseRolloutSummary(text);
      const passed = summary.tried.flatMap((t) => {
        const m = /^`(.+)` → exit 0$/.exec(t.trim());
        return m ? [m[1]!] : [];
      });
      const exited0 = summary.tried.flatMap((t) => {
        const m = /^`(.+)` → exit 0\b/.exec(t.trim());
        return m ? [m[1]!] : [];
      });
      out.push({ rolloutId: r.rolloutId, order, task: summary.task, outcome: meta.outcome, passed, exited0 });
    } catch {
      // A damaged summary only costs this rule its evidence.
    }
  }
  return out;
}

/**
 * Unfinished work that a later run finished is no longer unfinished: drops `task_state` candidates when a
 * newer rollout `completed` a task sharing most of their words (overlap ≥ 0.5 on the task's content words).
 */
export function closeFinishedTasks(candidates: Candidate[], outcomes: RolloutOutcome[]): { kept: Candidate[]; closed: Candidate[] } {
  const closed: Candidate[] = [];
  const kept = candidates.filter((c) => {
    if (c.kind !== 'task_state') return true;
    const words = contentTokens(c.text);
    const done = outcomes.some((o) => o.order < c.order && o.outcome === 'completed' && similarity(contentTokens(o.task), words).overlap >= 0.5);
    if (done) closed.push(c);
    return !done;
  });
  return { kept, closed };
}
