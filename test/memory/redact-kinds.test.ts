import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { rememberingRedact } from '../../src/memory/redact-parts.js';
import { NEGATIVE_CORPUS } from './negative-corpus.js';
import { SECRET_CORPUS } from './secret-corpus.js';

/** Issue 10, item 8: redaction by the kind, not the instance, and precision on look-alikes. */
describe('redaction by kind', () => {
  it('holds at least 50 kinds of fake secret, each marked FAKE (or "fake ", "Fake", fa4e, FAKE in base64 or hex) for grepping', () => {
    expect(new Set(SECRET_CORPUS.map((c) => c.name)).size).toBeGreaterThanOrEqual(50);
    for (const c of SECRET_CORPUS) expect(c.text, c.name).toMatch(/FAKE|fake |Fake|fa4e|RkFLR|Z2hwX0ZBS0|c2stYW50|REJfUEFTU1dPUkQ9RkFLR|46414b45/);
  });

  it.each(SECRET_CORPUS.map((c) => [c.name, c] as const))('removes %s and marks its kind', (_name, c) => {
    const out = redact(c.text);
    expect(out).not.toContain(c.secret);
    expect(out).toContain(`[REDACTED:${c.kind}]`);
    expect(redact(out)).toBe(out);
  });

  it('joins a token cut by a line break, but never a whole token to the next line', () => {
    const whole = 'npm whoami npm_FAKEnpmtok0123456789abcdefghijklmn\nhuggingface-cli login';
    expect(redact(whole)).toBe('npm whoami [REDACTED:npm_token]\nhuggingface-cli login');
    const cut = 'curl -H "Authorization: token ghp_FAKEzz1B2c3D4e5F6g7\\\n  H8i9J0kLmNoPqRsTuWx" x';
    expect(redact(cut)).not.toContain('H8i9J0kLmNoPqRsTuWx');
  });

  it('leaves every look-alike exactly as it is (false positives: 0)', () => {
    const flagged = NEGATIVE_CORPUS.filter((c) => redact(c.text) !== c.text).map((c) => `${c.name}: ${redact(c.text)}`);
    expect(flagged).toEqual([]);
  });
});

describe('rememberingRedact: a secret seen once is caught where it appears bare later (new-user trial #10)', () => {
  it('replaces the echoed value of an exported secret in a later record, and only in that transcript', () => {
    const value = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Lm2';
    const r = rememberingRedact();
    expect(r(`export AWS_SECRET_ACCESS_KEY=${value}; echo $AWS_SECRET_ACCESS_KEY`)).not.toContain(value);
    // The tool's output: the value alone on a line, no name beside it; plain redact cannot know it.
    expect(redact(`${value}\n`)).toContain(value);
    expect(r(`${value}\n`)).toBe('[REDACTED:secret]\n');
    // Client flags and prose statements count as seen too.
    expect(r('mysql -u root -pTr0ub4dor3x -e "select 1"')).not.toContain('Tr0ub4dor3x');
    expect(r('connected with Tr0ub4dor3x as the password')).not.toContain('Tr0ub4dor3x');
    // Another transcript starts with nothing remembered.
    expect(rememberingRedact()(`${value}\n`)).toContain(value);
  });

  it('does not remember short or placeholder values', () => {
    const r = rememberingRedact();
    r('PASSWORD=abc123 TOKEN=$GITHUB_TOKEN');
    expect(r('abc123 and $GITHUB_TOKEN')).toBe('abc123 and $GITHUB_TOKEN');
  });
});
