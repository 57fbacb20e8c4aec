import type { RawMemory } from '../../types.js';
import { essentialCommand, splitCommand, workSegments } from '../commands.js';
import { errorLines } from '../error-lines.js';
import { commandOf, type RolloutView, type Step } from '../rollout.js';
import { failedTestNames } from './flaky.js';
import { clip, keywordsOf, quote } from './text.js';

/**
 * Tests that failed and then did not fail on an identical rerun while the rerun still failed for another reason
 * (issue 12, blind part heldout-k: Dafny's "Verification of 'Bank.Transfer' timed out" was gone on the rerun,
 * the real proof failure beside it stayed). `fixes.ts` finds a flaky test only when the rerun passes. The runs
 * are the same command as typed, with nothing between them but reading (no edit, no other command that could
 * change the outcome), the first run's report names the failure (`failedTestNames`), the rerun does not mention
 * it, and an error line of the rerun was in the first run's output.
 */
export function flakyBesideFailures(view: RolloutView): RawMemory[] {
  const out: RawMemory[] = [];
  const seen = new Set<string>();
  const steps = view.steps;
  for (let i = 0; i < steps.length; i++) {
    const first = steps[i]!;
    const cmd = commandOf(first);
    if (!cmd || !exitedNonZero(first)) continue;
    const segs = splitCommand(cmd);
    const test = workSegments(segs).find((s) => s.category === 'test');
    if (!test) continue;
    let j = i + 1;
    while (j < steps.length && onlyReads(steps[j]!)) j++;
    const rerun = steps[j];
    if (!rerun || commandOf(rerun) !== cmd || !exitedNonZero(rerun)) continue;
    // The rerun failed the same other way (an error line of it was in the first run's output; a summary line's
    // counts differ): it ran as far, so a failure it does not mention at all did not happen, rather than not
    // being reached.
    if (!errorLines(rerun.output ?? '', 5).some((l) => (first.output ?? '').includes(l))) continue;
    const gone = failedTestNames(first.output ?? '', 20).filter((n) => !(rerun.output ?? '').includes(n) && !seen.has(n));
    if (gone.length === 0) continue;
    for (const n of gone) seen.add(n);
    const why = errorLines(first.output ?? '', 4).find((l) => gone.some((n) => l.includes(n))) ?? errorLines(first.output ?? '', 1)[0];
    const names = gone.slice(0, 3).map((n) => `\`${clip(n, 120)}\``).join(', ');
    out.push({
      kind: 'pitfall',
      text: `Flaky: ${names} failed and then did not fail on an identical rerun of \`${clip(essentialCommand(segs, test), 160)}\` with no change in between (the rerun's other failures stayed)${why ? `; it said ${quote(why)}` : ''}. Rerun once before debugging such a failure.`,
      evidence: { lines: [...new Set([first.callLine, first.resultLine ?? first.callLine, rerun.callLine, rerun.resultLine ?? rerun.callLine])].sort((a, b) => a - b), ...(why ? { quote: clip(why, 200) } : {}) },
      importance: 3,
      keywords: keywordsOf(['flaky', ...gone]),
    });
  }
  return out;
}

/** A command known to have failed by its exit code (an error result without one proves no rerun). */
function exitedNonZero(step: Step): boolean {
  return typeof step.exitCode === 'number' && step.exitCode !== 0;
}

/** A step that cannot change a rerun's outcome: a file view, or a command that only reads (`cat`, `grep`, `ls` …). */
function onlyReads(step: Step): boolean {
  const cmd = commandOf(step);
  if (!cmd) return step.name === 'str_replace_based_edit_tool' && step.input.command === 'view';
  return splitCommand(cmd).every((s) => s.category === 'inspect' || s.category === 'shell');
}
