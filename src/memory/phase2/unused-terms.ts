import type { Candidate } from './merge.js';

/**
 * A change of the repository stated in a language no word list reads (issue 12, kind 1, read from structure):
 * "Yá nun usamos Jupyter nin Python … el venv y QUARTO_PYTHON yá nun faen falta". Phase 1 already knows the
 * sentence states a change (`changes.ts`); what it cannot tell is which of the names in it are the old way
 * and which the new. The run that stated the change tells: the new way is what it ran and got through, the old
 * way is what it talked about and never ran. So an older procedure or pitfall whose commands use a name the
 * statement gives and the stating run never ran with success is stale.
 *
 * Only names inside the older entry's commands count (a chain to repeat, not prose); an entry a step of which
 * the stating run typed again stays; never a preference: a person's word goes only by a stated change the
 * word lists can read (`migrationRetires`).
 */

const CHANGE_FACT = /^(?:The task states that the repository changed|The user said the repository changed|The agent's final message says the repository changed): “([^”]*)”/;

/** The evidence of one rollout: its place (0 = newest) and the commands that exited 0 in it. */
export interface StatingRun {
  order: number;
  passed: string[];
  exited0?: string[];
  ran?: string[];
}

/** Lower-case identifier-like names of a text: words of letters, digits and `_`, three characters or more. */
function names(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => w.length >= 3 && /[a-z]/.test(w) && !/^\d/.test(w)));
}

/** Literal values a command passes around (`|| true`): no tool, file or setting, so never the old way. */
const NO_NAME = new Set(['true', 'false', 'null', 'none', 'yes']);

function spans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => bare(m[1]!)).filter(Boolean);
}

/** A command without `cd … &&` in front and output plumbing behind: what was run, however it was typed. */
function bare(command: string): string {
  return command
    .replace(/^(\s*(cd|pushd)\s+\S+\s*(&&|;)\s*)+/, '')
    .replace(/\s+2>&1|\s*\|\s*(tail|head|grep)\b.*$/g, '')
    .trim();
}

/** Each simple command of what a run typed, one per `&&`, `;`, `||` or pipe. */
function steps(commands: string[]): Set<string> {
  return new Set(commands.flatMap((c) => c.split(/\s*(?:&&|\|\||;|\|)\s*/)).map(bare).filter(Boolean));
}

/** The names a change statement gives that its own run never used in a command that got through. */
export function oldSideNames(statement: string, ranWell: string[]): Set<string> {
  const used = new Set<string>();
  for (const c of ranWell) for (const n of names(c)) used.add(n);
  return new Set([...names(statement)].filter((n) => !used.has(n)));
}

/** Older procedures and pitfalls a newer change statement (its old side read from its run) retires. */
export function changedAwayFrom(candidates: Candidate[], runs: StatingRun[]): Array<{ stale: Candidate; by: Candidate }> {
  const out: Array<{ stale: Candidate; by: Candidate }> = [];
  for (const a of candidates) {
    const said = a.kind === 'fact' ? CHANGE_FACT.exec(a.text)?.[1] : undefined;
    if (!said) continue;
    const run = runs.find((r) => r.order === a.order);
    // Without the stating run's commands there is no telling old from new.
    if (!run) continue;
    const old = oldSideNames(said, run.exited0 ?? run.passed);
    for (const n of NO_NAME) old.delete(n);
    if (old.size === 0) continue;
    const again = steps(run.ran ?? run.passed);
    for (const b of candidates) {
      if (b === a || !(a.order < b.order) || (b.kind !== 'procedure' && b.kind !== 'pitfall')) continue;
      if (b.sources.some((s) => a.sources.includes(s))) continue;
      const commands = spans(b.text);
      // The stating run typed a step of the entry's fix again: the entry is still (partly) how things are done
      // here. The command the fix was for does not count: it is run before and after any change.
      const targets = new Set([...b.text.matchAll(/`([^`]+)`\s+(?:needs|failed|exits)\b/g)].map((m) => bare(m[1]!)));
      if (commands.some((c) => !targets.has(c) && again.has(c))) continue;
      if (commands.some((c) => [...names(c)].some((n) => old.has(n)))) out.push({ stale: b, by: a });
    }
  }
  return out;
}
