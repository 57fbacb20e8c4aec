/**
 * What a fix found by `fixes.ts` turns out to be: a bug fixed in code (no environment lesson), a flaky test (an
 * identical rerun passed), the failing run again, or the same command with options added. Split from `fixes.ts`,
 * which finds the fix.
 */
import type { RawMemory } from '../../types.js';
import { essentialCommand, sameCommand, splitCommand, type Segment } from '../commands.js';
import { errorLines } from '../error-lines.js';
import { failedTestNames } from './flaky.js';
import { failedOnAssertions } from './code-fix.js';
import { commandOf, type Step } from '../rollout.js';
import { clip, keywordsOf, quote } from './text.js';

/** A failing step and the segment of it that failed. */
export interface Failure {
  step: Step;
  seg: Segment;
}
/** The step that resolved a chain of failures, and what changed before it. */
export interface Fix {
  chain: Failure[];
  resolver: Step;
  resolverSegs: Segment[];
  resolverSeg: Segment;
  /** `oneTime`: an edit of a file of the repository (committed with the run's work): never a step to repeat. */
  changes: Array<{ step: Step; text: string; oneTime?: boolean }>;
  /** A command between the failure and the resolver that did more than look (`readOnlyCommand`). */
  changedBetween: boolean;
  /** The resolver failed too, on another error: the changes fixed the first one only (`movedPast`). */
  movedPast?: boolean;
  /**
   * The failure was "command not found" (or an option added got it past its error) and the resolver is the form
   * in which it ran (it may then have failed on something else).
   */
  ranAs?: boolean;
}

/**
 * Tests that failed on their own assertions and then passed after edits of the repository only, or with an
 * option added to the same runner (`--snapshot-update`, `--rerun-failed`): a bug fixed in code, or a check
 * changed, teaches no environment lesson (round 23; `code-fix.ts`). A setup command or a file outside the
 * workspace among the changes keeps the lesson: that part is about the environment.
 */
export function fixedInCode(failures: Failure[], fix: Fix): boolean {
  if (failures.some((f) => f.seg.category !== 'test' || !failedOnAssertions(f.step.output ?? ''))) return false;
  if (fix.changedBetween && fix.changes.length === 0) return false;
  return fix.changes.every((c) => c.oneTime && c.text.startsWith('changing '));
}

/**
 * The identical command failed and then passed with nothing changed in between (no edit, no setup): the
 * failing tests are flaky. A lesson naming them (read from the runner's report), so that the next run reruns
 * before it debugs; nothing when the report names no test (a bare retry teaches nothing).
 */
export function flakyTest(failures: Failure[], fix: Fix): RawMemory | undefined {
  if (fix.resolverSeg.category !== 'test' || failures.some((f) => f.seg.text !== failures[0]!.seg.text)) return undefined;
  const names = failedTestNames(failures[0]!.step.output ?? '');
  if (names.length === 0) return undefined;
  const why = errorLines(failures[0]!.step.output ?? '', 1)[0];
  const cmd = clip(essentialCommand(fix.resolverSegs, fix.resolverSeg), 160);
  return {
    kind: 'pitfall',
    text: `Flaky test${names.length > 1 ? 's' : ''}: ${names.map((n) => `\`${clip(n, 120)}\``).join(', ')} failed and then passed on an identical rerun of \`${cmd}\` with no change in between${why ? ` (it said ${quote(why)})` : ''}. Rerun once before debugging such a failure.`,
    evidence: { lines: [...new Set([failures[0]!.step.callLine, failures[0]!.step.resultLine ?? failures[0]!.step.callLine, fix.resolver.callLine])].sort((a, b) => a - b), ...(why ? { quote: clip(why, 200) } : {}) },
    importance: 3,
    keywords: keywordsOf(['flaky', ...names]),
  };
}

/**
 * The rerun is the failing run again: the same command, and nothing in the rerun's line that the failing one
 * lacked (`cd /workspace && mix deps.get && mix test` → `cd /workspace && mix test`); output filters
 * (`| tail -20`) and changes of directory do not count.
 */
export function sameRun(failure: Failure, fix: Fix): boolean {
  if (commandOf(failure.step) === commandOf(fix.resolver)) return true;
  // As typed (an environment assignment in front is a change), less redirections of its output.
  const typed = (seg: Segment) => seg.text.replace(/\s*\d*>&\d+|\s*\d*>>?\s*\/dev\/null/g, '').trim();
  if (typed(failure.seg) !== typed(fix.resolverSeg)) return false;
  const had = new Set(splitCommand(commandOf(failure.step) ?? '').map(typed));
  return fix.resolverSegs.every((s) => s.piped || s.category === 'shell' || s.category === 'inspect' || had.has(typed(s)));
}

/** `after` is `before` with options added (`-w ghc-9.6.4`, `--offline`), every word of `before` kept in order. */
export function addsOptions(before: Segment, after: Segment): boolean {
  if (!sameCommand({ ...before, canonical: before.key } as Segment, { ...after, canonical: after.key } as Segment) || after.args.length <= before.args.length) return false;
  return addedArgs(before, after).some((a) => a.startsWith('-'));
}

/** The words `after` has that `before` lacks, when `after` keeps every word of `before` in order; empty otherwise. */
export function addedArgs(before: Pick<Segment, 'args'>, after: Pick<Segment, 'args'>): string[] {
  let k = 0;
  const extra: string[] = [];
  for (const a of after.args) {
    if (k < before.args.length && a === before.args[k]) k += 1;
    else extra.push(a);
  }
  return k === before.args.length ? extra : [];
}

