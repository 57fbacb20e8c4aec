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
    const ids = identifiers(c.text);
    const done = outcomes.some(
      (o) =>
        o.order < c.order &&
        o.outcome === 'completed' &&
        (similarity(contentTokens(o.task), words).overlap >= 0.5 || [...identifiers(o.task)].some((i) => ids.has(i)) || (CONTINUES.test(o.task) && newestOpenBefore(candidates, o.order) === c)),
    );
    if (done) closed.push(c);
    return !done;
  });
  return { kept, closed };
}

/**
 * A task that says it carries on the last one ("finish the previous task", "termine la tâche précédente",
 * "mach die letzte Aufgabe fertig", "继续上次的任务", "前回のタスクの続き"): it closes the newest unfinished work
 * before it, in whatever language either was written.
 */
const CONTINUES =
  /\b(previous|last|earlier|unfinished) (task|run|session)|\bpick up where|\bcontinue (the|where)|précédente?|tâche d'avant|vorherige|letzte aufgabe|angefangene|tarea anterior|anterior tarea|tarefa anterior|compito precedente|上次|之前的任务|前回|この前の|이전 작업|지난번/i;

/** Identifiers in a text that name one thing in the code: `Invoices::PdfRenderer`, `src/worker.ts`, `renewLease`. */
function identifiers(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_][\w]*(?:::|\.|\/)[\w:./-]*[\w]|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*/g)) {
    const id = m[0];
    // Versions, hosts and bare file extensions name no piece of this repository's code.
    if (id.length < 6 || /^\d|^(e\.g|i\.e|etc)\b|\.(com|org|io|net)$/i.test(id) || /^\/?(workspace|tmp|usr)\b/.test(id)) continue;
    out.add(id.toLowerCase());
  }
  return out;
}

function newestOpenBefore(candidates: Candidate[], order: number): Candidate | undefined {
  return candidates.filter((c) => c.kind === 'task_state' && c.order > order).sort((a, b) => a.order - b.order)[0];
}

