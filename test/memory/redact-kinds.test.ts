import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { NEGATIVE_CORPUS } from './negative-corpus.js';
import { SECRET_CORPUS } from './secret-corpus.js';

/** Issue 10, item 8: redaction by the kind, not the instance, and precision on look-alikes. */
describe('redaction by kind', () => {
  it('holds at least 50 kinds of fake secret, each marked FAKE (or fa4e) for grepping', () => {
    expect(new Set(SECRET_CORPUS.map((c) => c.name)).size).toBeGreaterThanOrEqual(50);
    for (const c of SECRET_CORPUS) expect(c.text, c.name).toMatch(/FAKE|fa4e|RkFLR|Z2hwX0ZBS0|c2stYW50|REJfUEFTU1dPUkQ9RkFLR/);
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
