/**
 * Whether one segment of a command passed, when the step's exit code may belong to something else:
 * `npm test 2>&1 | tail -20` reports tail's status, `pytest || true` always 0, `make test; echo $?` echo's.
 * Agents type these forms all the time, so a rule that trusted the step's exit code would learn a failing
 * suite as "passed" (or miss a passing one).
 */

import type { Segment } from './commands.js';
import type { Step } from './rollout.js';

export type SegmentOutcome = 'passed' | 'failed' | 'unknown';

/**
 * Output that says a command failed, whatever the exit code said (test runners, package managers, compilers, shells).
 * A summary of none (CTest's "100% tests passed, 0 tests failed out of 14") is no failure. R (`[ FAIL 2 | …`, `Error in …`,
 * `Execution halted`), prove (`Result: FAIL`) and PHPUnit (`FAILURES!`) print theirs while the exit code may say 0.
 * apt and dpkg mark an error line `E: ` ("E: Unable to locate package x"); git and compilers `fatal: `.
 */
const FAILURE =
  /\b[1-9]\d* (failed|failing|failures?|errors?)\b|^\s*(FAIL|FAILED|ERROR)\b|npm ERR!|ERR_PNPM_|^error(\[E\d+\])?:|Traceback \(most recent call last\)|^panic:|BUILD FAILED|BUILD FAILURE|command not found|No such file or directory|Permission denied|^g?make(\[\d+\])?: \*\*\*|(?<!\b0 )Tests failed|\[ FAIL [1-9]\d* \||^Error in \S|^Execution halted|^Result: FAIL|^FAILURES!|test result: FAILED|exit (code|status):? [1-9]|^E: |^fatal: |^! (LaTeX |Package \S+ |Class \S+ )?(Error|Undefined|Missing|Emergency|Too many|Extra|File)/im;

/**
 * A test runner's summary that reports failures: "2 failed", "Failing 1" (GUT), "[Failed]:", "Result: FAIL", TAP's `not ok`,
 * a count out of a total whatever is counted ("SUMMARY: 1 of 3 fits FAILED", "2 of 40 checks failed"), and a
 * test's own line marked in capitals ("pipe: FAILED", "test_parse ... FAILED", `"tank: FAILED"` printed by a script).
 */
const FAILED_SUMMARY = /\b[1-9]\d* (?:failed|failing|failures?)\b|\b[1-9]\d* of \d+ [\w-]+(?: [\w-]+)? (?:failed|failing)\b|^\s*Failing\s+[1-9]|^\s*\[Failed\]|^Result: FAIL|^FAILURES!|test result: FAILED|^not ok \d+/im;
const TEST_LINE_FAILED = /^[\s"'`]*[\w./:[\]-]+(?::|\s+\.{2,}|\s+-+)\s+FAILED\b/m;

/** True when `text` (an output, or one line of it) reports failing tests (see FAILED_SUMMARY). */
export function reportsFailingTests(text: string): boolean {
  return FAILED_SUMMARY.test(text) || TEST_LINE_FAILED.test(text);
}

/** True when `output` shows a failure (see FAILURE). */
export function outputShowsFailure(output: string): boolean {
  // Only the end matters for a filtered tail, and long logs must not cost much.
  return FAILURE.test(output.length > 20_000 ? output.slice(-20_000) : output);
}

/**
 * The outcome of `seg` (one of `segments`, from `splitCommand(commandOf(step))`) in `step`: the exit code
 * when it is the segment's (nothing but `&&` and inspection after it, no pipe without `pipefail`); the code
 * printed by a `; echo $?` right after it; passed when a later segment joined to it by `&&` alone passed; else
 * the output read for failure markers (`| tail`, `|| true`).
 */
export function segmentOutcome(step: Step, segments: Segment[], seg: Segment): SegmentOutcome {
  if (step.resultLine === undefined) return 'unknown';
  const exit = step.exitCode ?? (step.isError === undefined ? undefined : step.isError ? 1 : 0);
  const i = segments.indexOf(seg);
  if (i < 0 || exit === undefined) return 'unknown';
  // A run of the tests whose output reports failing tests failed, whatever status it gave (`omc tests/runAll.mos`
  // printing "pipe: FAILED" and exiting 0): learning it as passed turns the setup that fixed it into nothing.
  if (seg.category === 'test' && reportsFailingTests(step.output ?? '')) return 'failed';
  const pipefail = segments.slice(0, i).some((s) => s.program === 'set' && s.args.some((a) => a === 'pipefail' || /^-\w*o$/.test(a)) && s.core.includes('pipefail'));
  let j = i;
  while (segments[j + 1]?.joiner === '|') j += 1;
  const after = segments.slice(j + 1);
  const output = step.output ?? '';
  const trusted = (j === i || pipefail) && after.every((s) => s.joiner === '&&');
  if (trusted) {
    if (exit === 0) return 'passed';
    // `make test && echo ok`: a nonzero status is the test's; after further work it may be any one's.
    return after.every((s) => s.category === 'inspect' || s.category === 'shell') ? 'failed' : 'unknown';
  }
  const next = after[0];
  const printed = printedStatus(step, segments, seg);
  if (printed !== undefined) return printed === 0 ? 'passed' : 'failed';
  // `apt-get install x && cd /workspace && cargo test | tail`: a later segment joined by `&&` alone passed, so it
  // ran, so this one passed (its own status is hidden by the pipe after the later one).
  if (j === i) {
    for (let k = i + 1; k < segments.length && segments[k]!.joiner === '&&'; k += 1) {
      if (segmentOutcome(step, segments, segments[k]!) === 'passed' && segments[k]!.category !== 'shell' && segments[k]!.category !== 'inspect') return 'passed';
    }
  }
  if (outputShowsFailure(output)) return 'failed';
  // Unreliable status and no failure in sight: the status of a filter or `|| true` said 0.
  return exit === 0 && (j > i || next?.joiner === '||') ? 'passed' : 'unknown';
}

/**
 * The status the run printed for `seg` right after it: `; echo $?` (`${?}`), or `; echo "exit=${PIPESTATUS[0]}"`
 * after a pipe from it; read back from the end of the output. Undefined when nothing printed one.
 */
export function printedStatus(step: Step, segments: Segment[], seg: Segment): number | undefined {
  let j = segments.indexOf(seg);
  if (j < 0) return undefined;
  const piped = segments[j + 1]?.joiner === '|';
  while (segments[j + 1]?.joiner === '|') j += 1;
  const next = segments[j + 1];
  if (!next || next.joiner !== ';' || next.program !== 'echo') return undefined;
  if (!/\$\?|\$\{\?\}/.test(next.text) && !(piped && /\$\{PIPESTATUS\[0\]\}/.test(next.text))) return undefined;
  const m = /(?:^|\D)(\d{1,3})\s*$/.exec((step.output ?? '').trimEnd());
  return m ? Number(m[1]) : undefined;
}

/** Convenience: the outcome is `passed`. */
export function segmentPassed(step: Step, segments: Segment[], seg: Segment): boolean {
  return segmentOutcome(step, segments, seg) === 'passed';
}
