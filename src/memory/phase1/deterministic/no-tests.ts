import type { RawMemory } from '../../types.js';
import { essentialCommand, sameCommand, splitCommand, workSegments, type Segment } from '../commands.js';
import { commandOf, type RolloutView, type Step } from '../rollout.js';
import { segmentOutcome } from '../outcome.js';
import { clip, keywordsOf, quote } from './text.js';

/**
 * A runner's report that it ran no test at all: "running 0 tests" (Rust's and Cairo's harness), "Ran 0 tests"
 * (unittest), "collected 0 items" (pytest), "0 examples, 0 failures" (RSpec), "No tests found", "Executed 0 of 0".
 */
const NO_TESTS = /\b(?:running|ran|collected|executed|found|discovered)\s+0\s+(?:tests?|items?|specs?|examples?|test cases?)\b|\b0 (?:examples?|specs?|tests?),\s*0 failures\b|\bno tests? (?:found|ran|to run|were found|were run)\b|\bExecuted 0 of 0\b/i;

/** A report that tests ran: a count of one or more passed, run or collected. */
const SOME_TESTS = /\b[1-9]\d* (?:tests? )?passed\b|\b(?:running|ran|collected|executed|found)\s+[1-9]\d*\s+(?:tests?|items?|specs?|examples?|test cases?)\b|\bCollected [1-9]\d* test|\b[1-9]\d* examples?, 0 failures\b|\bTests?:\s+[1-9]\d* passed\b/i;

/**
 * A test command that passed (exit 0) having run no test (`NO_TESTS` in its output), and later in the run
 * another test command that passed having run some (issue 12, round 18 on heldout-l: `scarb test` runs
 * cairo-test, finds nothing and exits 0; the tests run with `snforge test`). The next run must not take the
 * first one's 0 for green: one pitfall naming both, with the line that said so.
 */
export function ranNoTests(view: RolloutView): RawMemory[] {
  const runs = testRuns(view);
  const out: RawMemory[] = [];
  const seen = new Set<string>();
  // A report of several suites where one ran tests ("running 9 tests" … "running 0 tests" for the doc tests) ran
  // tests: only a command whose every count is zero is empty (round 22, heldout-n: `cargo test --workspace`).
  for (const empty of runs.filter((r) => r.passed && NO_TESTS.test(r.step.output ?? '') && !SOME_TESTS.test(r.step.output ?? ''))) {
    if (seen.has(empty.seg.canonical)) continue;
    const real = runs.find((r) => r.step.index > empty.step.index && r.passed && !sameCommand(r.seg, empty.seg) && !NO_TESTS.test(r.step.output ?? '') && SOME_TESTS.test(r.step.output ?? ''));
    if (!real) continue;
    seen.add(empty.seg.canonical);
    const said = (empty.step.output ?? '').split('\n').map((l) => l.trim()).find((l) => NO_TESTS.test(l)) ?? '';
    out.push({
      kind: 'pitfall',
      text: `\`${clip(empty.seg.text, 120)}\` runs no tests in this repository and exits 0 (its output said ${quote(clip(said, 100))}): the tests run with \`${clip(real.cmd, 200)}\`.`,
      evidence: { lines: [empty.step.callLine, ...(empty.step.resultLine ? [empty.step.resultLine] : []), real.step.callLine] },
      importance: 4,
      keywords: keywordsOf([empty.seg.key, real.seg.key, 'tests', '0 tests']),
    });
  }
  return out;
}

/** Every test segment the run ran, with whether it passed and its command as retyped. */
function testRuns(view: RolloutView): Array<{ step: Step; seg: Segment; cmd: string; passed: boolean }> {
  const out: Array<{ step: Step; seg: Segment; cmd: string; passed: boolean }> = [];
  for (const step of view.steps) {
    const text = commandOf(step);
    if (!text) continue;
    const segs = splitCommand(text);
    for (const seg of workSegments(segs)) {
      if (seg.category !== 'test' || seg.silenced) continue;
      out.push({ step, seg, cmd: essentialCommand(segs, seg), passed: segmentOutcome(step, segs, seg) === 'passed' });
    }
  }
  return out;
}
