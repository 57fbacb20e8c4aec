import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): a test run's tally (`Result: PASS=1234 FAIL=2`, `PASS=38/40`) came out as
 * `PASS=[REDACTED:password]`: a count under a name that says `pass` is the number of passed tests. A word under
 * the same name, or a number under a password name outside a tally, is still a secret.
 */
describe('a test tally is not a password', () => {
  it.each([
    ['count with FAIL', 'Result: PASS=1234 FAIL=2'],
    ['ratio', 'PASS=38/40'],
    ['percentage after a colon', 'PASS: 100%'],
    ['decimal percentage', 'PASS=97.5%'],
    ['PASSED with FAILED and SKIPPED', 'tests PASSED=1234 FAILED=3 SKIPPED=7'],
    ['lower-case passed after a colon', 'passed: 1234, failed: 0'],
    ['a tally in a longer log', 'npm test\n> suite\nPASS=4021 FAIL=0 TOTAL=4021\ndone'],
    ['a pass-named count beside TOTAL', 'tests_passed=1234 total=1240'],
  ])('%s', (_, text) => {
    expect(redact(text)).toBe(text);
  });

  it.each([
    ['a word under PASS', 'PASS=hunter2secret', 'PASS=[REDACTED:password]'],
    ['a word under PASS beside FAIL', 'PASS=hunter2secret FAIL=2', 'PASS=[REDACTED:password] FAIL=2'],
    ['exported PASS word', 'export PASS=hunter2secret', 'export PASS=[REDACTED:password]'],
    ['a numeric PASSWORD alone', 'PASSWORD=1234567', 'PASSWORD=[REDACTED:password]'],
    ['a numeric DB_PASS alone', 'DB_PASS=123456', 'DB_PASS=[REDACTED:password]'],
    ['a numeric password beside an unrelated count', 'DB_PASSWORD=1234567 RETRIES=3', 'DB_PASSWORD=[REDACTED:password] RETRIES=3'],
  ])('%s stays a secret', (_, text, want) => {
    expect(redact(text)).toBe(want);
  });
});
