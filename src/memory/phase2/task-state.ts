import { readFile } from 'node:fs/promises';
import { parseRolloutSummary } from '../artifacts.js';
import type { MemoryPaths } from '../layout.js';
import { contentTokens, similarity, unfinishedTask } from '../normalize.js';
import type { RolloutInput } from './inputs.js';
import type { Candidate } from './merge.js';
import { replacingFact } from './supersede.js';

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
  /** Every command the summary's `Tried` lists, whatever its exit. */
  ran?: string[];
  /** Workspace files the rollout deleted (the summary's `Files changed`: "path (deleted)"). */
  deleted?: string[];
  /** Workspace files the rollout edited (the rest of `Files changed`). */
  changed?: string[];
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
      const ran = summary.tried.flatMap((t) => {
        const m = /^`(.+)` → /.exec(t.trim());
        return m ? [m[1]!] : [];
      });
      const deleted = filesGone(summary.filesChanged);
      const changed = summary.filesChanged.map((f) => f.trim()).filter((f) => !/ \((?:deleted|missing)\)$/.test(f));
      out.push({ rolloutId: r.rolloutId, order, task: summary.task, outcome: meta.outcome, passed, exited0, ran, deleted, changed });
    } catch {
      // A damaged summary only costs this rule its evidence.
    }
  }
  return out;
}

/**
 * Unfinished work that a later run finished is no longer unfinished: drops `task_state` candidates when a
 * newer rollout `completed` a task sharing most of their words (overlap ≥ 0.5 on the task's content words),
 * or took up the same work and left its own unfinished-work entry (`carriedForward`), and flaky-test lessons
 * whose test a newer completed task named (`fixedFlaky`).
 */
export function closeFinishedTasks(candidates: Candidate[], outcomes: RolloutOutcome[]): { kept: Candidate[]; closed: Candidate[]; fixed: FixedFlaky[] } {
  const closed: Candidate[] = [];
  const fixed: FixedFlaky[] = [];
  const kept = candidates.filter((c) => {
    const by = fixedFlaky(c, outcomes) ?? fixedFlakyNote(c, outcomes);
    if (by) {
      closed.push(c);
      fixed.push(by);
      return false;
    }
    if (c.kind !== 'task_state') return true;
    const words = contentTokens(c.text);
    const ids = identifiers(c.text);
    // The newer task names the same code or ticket, or says it continues this work.
    const named = (o: RolloutOutcome) =>
      [...identifiers(o.task)].some((i) => ids.has(i)) || (CONTINUES.test(o.task) && newestOpenBefore(candidates, o.order) === c);
    const sameWork = (o: RolloutOutcome) => similarity(contentTokens(o.task), words).overlap >= 0.5 || named(o);
    // A newer run that left its own unfinished note replaces this one only when it is the same task: every content
    // word of one task is in the other (trial 21 F2: "interrupt TERM" was replaced by "interrupt INT"), or named.
    const ownTask = contentTokens(unfinishedTask(c.text) ?? c.text);
    const sameOpenWork = (o: RolloutOutcome) => similarity(contentTokens(o.task), ownTask).overlap === 1 || named(o);
    const done = outcomes.some(
      (o) =>
        o.order < c.order &&
        ((o.outcome === 'completed' && (sameWork(o) || answers(c, o))) || (carriedForward(candidates, o) && sameOpenWork(o))),
    );
    if (done) closed.push(c);
    return !done;
  });
  return { kept, closed, fixed };
}

/** A flaky-test lesson (`stale`) retired because a newer completed rollout (`by`) was asked to fix that test. */
export interface FixedFlaky {
  stale: Candidate;
  tests: string[];
  by: RolloutOutcome;
}

/**
 * The fact that replaces a retired flaky-test lesson: the next run should treat a failure of that test as
 * real, not rerun it away. Attributed to the rollout that fixed it.
 */
export function fixedFlakyFact(f: FixedFlaky, rollout: { rolloutId: string; time: string }): Candidate {
  const names = f.tests.map((t) => `\`${t}\``).join(', ');
  const task = f.by.task.length > 140 ? `${f.by.task.slice(0, 139)}…` : f.by.task;
  return replacingFact(
    `${names} ${f.tests.length > 1 ? 'are' : 'is'} no longer known as flaky: a later run worked on it and finished (“${task}”). A failure there is now real; debug it rather than rerun it.`,
    f.stale,
    rollout,
    f.by.order,
  );
}

/**
 * The run right after one that stopped to ask ("Waiting for the user's answer to: “Should I exclude … or …?”")
 * completed a task that takes up the question (two or more of its words): the user answered, and the work
 * went on under the answer, whatever language the answer is in.
 */
function answers(c: Candidate, o: RolloutOutcome): boolean {
  const q = /Waiting for the user's answer to: “([^”]+)”/.exec(c.text)?.[1];
  if (!q || o.order !== c.order - 1) return false;
  return similarity(contentTokens(o.task), contentTokens(q)).shared >= 2;
}

/**
 * A flaky-test lesson ("Flaky test: `matches crossing orders` failed and then passed …") that a newer run was
 * asked to work on by name and completed: a task names a flaky test to fix it, in whatever language, so the
 * entry no longer holds. Only names of 6+ characters count (a bare `test` names nothing).
 */
function fixedFlaky(c: Candidate, outcomes: RolloutOutcome[]): FixedFlaky | undefined {
  const m = /^Flaky tests?: (.+?) failed and then passed/.exec(c.text);
  if (c.kind !== 'pitfall' || !m) return undefined;
  // A test is named whole (`OrderBookSpec > matches crossing orders`) or by its last part (`TestPoolDrain`).
  const names = [...m[1]!.matchAll(/`([^`]+)`/g)]
    .flatMap((x) => [x[1]!, x[1]!.split(/\s*(?:>|::|›)\s*|\.(?=[A-Za-z_])/).at(-1)!.replace(/\(\)$/, '')])
    .filter((n) => n.length >= 6)
    .map((n) => n.toLowerCase());
  const by = outcomes.find((o) => o.order < c.order && o.outcome === 'completed' && names.some((n) => o.task.toLowerCase().includes(n)));
  return by && { stale: c, tests: [...m[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!), by };
}

/**
 * A note that calls a test flaky and names the test file it lives in ("`ttl_test` in `test/cache_test.exs` is
 * flaky …") is retired when a newer completed rollout changed that file and a test command passed in it: the
 * flake was worked on and the suite ran green, whatever language the run said so in; so is one whose task names
 * that file as a code span and whose tests passed. The tests named are the note's code spans that are not the file.
 */
function fixedFlakyNote(c: Candidate, outcomes: RolloutOutcome[]): FixedFlaky | undefined {
  if (c.kind === 'preference' || c.kind === 'task_state' || !/\bflaky\b|\bintermittent(ly)?\b/i.test(c.text)) return undefined;
  const spans = [...c.text.matchAll(/`([^`]+)`/g)].map((x) => x[1]!.trim());
  // The file changed by that run, or named by its task: the user fixed the flake and said so, in any language
  // ("we fixed `spec/x_spec.lua`, it is no longer flaky"), and the run's tests then passed.
  const touched = (o: RolloutOutcome, f: string) => /test|spec/i.test(f) && ((o.changed ?? []).includes(f) || (/\.\w{1,5}$/.test(f) && o.task.includes(`\`${f}\``)));
  const by = outcomes.find((o) => o.order < c.order && o.outcome === 'completed' && o.passed.length > 0 && spans.some((f) => touched(o, f)));
  if (!by) return undefined;
  const file = spans.find((sp) => touched(by, sp))!;
  const tests = spans.filter((sp) => sp !== file && /^[\w.:#>-]+$/.test(sp) && !/\.\w{1,4}$/.test(sp));
  return { stale: c, tests: tests.length ? tests : [file], by };
}

/**
 * A task that says it carries on the last one ("finish the previous task", "termine la tâche précédente",
 * "mach die letzte Aufgabe fertig", "继续上次的任务", "前回のタスクの続き", "dokonči podle plánu z minulého běhu"): it closes the newest unfinished work
 * before it, in whatever language either was written.
 */
const CONTINUES = new RegExp(
  [
    "\\b(previous|last|earlier|unfinished) (task|run|session)|\\bpick up where|\\bcontinue (the|where)|\\b(according to|as in) the plan\\b|\\bas planned\\b",
    "précédente?|tâche d'avant|selon le plan|vorherige|letzte aufgabe|angefangene|nach plan|laut plan|tarea anterior|anterior tarea|según el plan|tarefa anterior|conforme o plano|compito precedente|secondo il piano",
    '(?<![\\wÀ-ɏḀ-ỿ])(vorige (taak|run)|volgens (het )?plan|poprzedni\\w*|według planu|förra körningen|föregående|enligt planen|forrige|efter planen|etter planen|minulého|předchozí\\w*|podle plánu|önceki|plana göre|sebelumnya|sesuai rencana|lần trước|theo kế hoạch)(?![\\wÀ-ɏḀ-ỿ])',
    '(предыдущ|прошл\\w* (запуск|раз)|по плану|попередн|минулого запуску|за планом|προηγούμεν|σύμφωνα με το σχέδιο|पिछले|पिछली|योजना के अनुसार)',
    '(上次|之前的任务|按计划|按照计划|前回|この前の|計画どおり|이전 작업|지난번|계획대로)',
  ].join('|'),
  'i',
);

/** Identifiers in a text that name one thing in the code: `Invoices::PdfRenderer`, `src/worker.ts`, `renewLease`. */
function identifiers(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_][\w]*(?:::|\.|\/)[\w:./-]*[\w]|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*/g)) {
    const id = m[0];
    // Versions, hosts and bare file extensions name no piece of this repository's code.
    if (id.length < 6 || /^\d|^(e\.g|i\.e|etc)\b|\.(com|org|io|net)$/i.test(id) || /^\/?(workspace|tmp|usr)\b/.test(id)) continue;
    out.add(id.toLowerCase());
  }
  // An issue or ticket named in both tasks (`#88`, `PAY-1432`) is the same piece of work in any language.
  for (const m of text.matchAll(/(?<![\w&#])#\d{1,6}\b|\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b/g)) {
    if (!/^(UTF|UCS|SHA|MD|ISO|PEP|RFC|AES|TLS|SSL|HTTP|IPV|ES|ECMA|CP|WIN|LATIN|X)-/.test(m[0])) out.add(m[0].toLowerCase());
  }
  return out;
}

/**
 * A newer rollout that took up the same work and did not finish it either left its own unfinished-work entry:
 * that entry is the work's state now (what was verified since, what still fails), so the older one, which
 * describes a state that has passed ("written but not verified"), goes — whatever language either is in.
 */
function carriedForward(candidates: Candidate[], o: RolloutOutcome): boolean {
  return o.outcome !== 'completed' && candidates.some((x) => x.kind === 'task_state' && x.sources.includes(o.rolloutId));
}

function newestOpenBefore(candidates: Candidate[], order: number): Candidate | undefined {
  return candidates.filter((c) => c.kind === 'task_state' && c.order > order).sort((a, b) => a.order - b.order)[0];
}


/** The files a summary lists as gone: "path (deleted)" (the run removed it) or "path (missing)" (the run did not find it). */
export function filesGone(filesChanged: string[]): string[] {
  return filesChanged.flatMap((f) => {
    const m = /^(.+) \((?:deleted|missing)\)$/.exec(f.trim());
    return m ? [m[1]!] : [];
  });
}
