/**
 * Test-run tallies (`Result: PASS=1234 FAIL=2`, `PASS=38/40`, `PASS: 97%`): a count under a name that says
 * `pass` is a number of passed tests, not a password. Shared by the assignment rules in `redact.ts`.
 */

/** A count, a ratio of counts or a percentage: `1234`, `38/40`, `97%`, `97.5%`. */
const COUNT_RE = /^\d+(?:\/\d+)?%?$|^\d+\.\d+%$/;
/** A bare name that, in a test report, means "tests passed": `PASS`, `PASSED`, `passes`, `Pass`. */
const BARE_PASS_RE = /^pass(?:ed|es)?$/i;
/** Another count of the same tally on the line: `FAIL=2`, `SKIP: 1`, `errors=0`, `TOTAL 40`. */
const TALLY_WORD_RE = /\b(?:fail(?:ed|s|ures?)?|skip(?:ped|s)?|errors?|total|xfail(?:ed)?|todo)\b\s*[:=]?\s*\d/i;

/**
 * Whether `value`, assigned to the secret-looking `name` at `offset` in `text`, is a test tally's count rather
 * than a secret: a count, ratio or percentage (COUNT_RE) under a bare `PASS` name, or under any name that says
 * pass (`PASSWORD=1234` alone stays a secret) when the same line holds another tally count (`FAIL=2`,
 * `SKIP: 1`, `TOTAL 40`). A word value (`PASS=hunter2secret`) is never a count. Pure.
 */
export function isTallyCount(name: string, value: string, text: string, offset: number): boolean {
  if (!COUNT_RE.test(value.trim())) return false;
  if (BARE_PASS_RE.test(name)) return true;
  if (!/pass/i.test(name)) return false;
  const lineStart = text.lastIndexOf('\n', offset) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  return TALLY_WORD_RE.test(line);
}
