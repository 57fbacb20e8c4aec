import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { expectGone } from './redact-expect.js';

/** New-user trial 24: a provider token written as its bare prefix and its body apart. */
const GH = 'Q7x2FAKEabcdefghijKLMNOPQRST98765432'; // 36: a classic token's body
const PAT = '11FAKE0Q0a1b2c3d4e5f6g7_h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6A7B8C9D0E1F2G3H4I5J6';

describe('a bare prefix at a line end and its body on the next line, for every known prefix', () => {
  it.each([
    ['github_pat_', PAT, 'github_token'],
    ['sk-ant-', 'api03-FAKEq9Xv2Lm7Rt4Wz8Kp1Ns6Bd3Hf0Jc5Gy7Te2Ua4Ro6Ei8Wq1Zx3Cv5Bn7Mk9Lj2Hg4Fd6Sa8Po0Iu2Yt4Re6We8Q-AAAA', 'anthropic_key'],
    ['xoxb-', '1234567890-1234567890123-FAKEfGhIjKlMnOpQrStUvWx', 'slack_token'],
    ['xoxp-', '9876543210-FAKE-abcdefabcdef12', 'slack_token'],
    ['sk_live_', '51H8FAKEu2e3abcdefGHIJKLmnop', 'stripe_key'],
    ['rk_test_', 'FAKE51H8u2e3abcdefGHIJKL', 'stripe_key'],
    ['npm_', 'FAKEnpmtok0123456789abcdefghijklmnop', 'npm_token'],
    ['glpat-', 'FAKE1234abcdEFGH5678ij', 'gitlab_token'],
    ['hf_', 'FAKEabcdefghijklmnopqrstuvwxyz0123', 'huggingface_token'],
    ['ghp_', GH, 'github_token'],
  ])('%s', (prefix, body, kind) => {
    for (const text of [`token:\n${prefix}\n${body}\nnext`, `printf '${prefix}\\n${body}\\n'`, `${prefix}\n\n  ${body}`]) {
      const out = redact(text);
      expect(out, text).not.toContain(body);
      expect(out).toContain(`[REDACTED:${kind}]`);
      expect(redact(out)).toBe(out);
    }
  });
});

describe('prose that spells a split token out: a prefix, a connector, the body', () => {
  it.each([
    `the staging token is split as ghp_ plus ${GH}.`,
    `prefix ghp_ then ${GH}`,
    `token: ghp_ + ${GH}`,
    `ghp_ ${GH}`,
    `gho_ followed by ${GH}`,
    `the CI key is \`ghs_\` and \`${GH}\``,
    `the token is split as github_pat_ plus ${PAT}`,
    `Slack: xoxb- then 1234567890-1234567890123-FAKEfGhIjKlMnOpQrStUvWx`,
    `stripe sk_live_ plus the rest: 51H8FAKEu2e3abcdefGHIJKLmnop`,
    `il token è ghp_ più ${GH}`,
    `el token es ghp_ y luego ${GH}`,
    `das Token ist ghp_ und dann ${GH}`,
    `anthropic: sk-ant- + api03-FAKEq9Xv2Lm7Rt4Wz8Kp1Ns6Bd3Hf0Jc5`,
    `the sk_test_ prefix and then 51H8FAKEu2e3abcdefGHIJKLmnop`,
    `ghp_ part, then the rest: ${GH}`,
  ])('%s', (text) => {
    const out = redact(text);
    expect(out).toMatch(/\[REDACTED:[a-z_]+\]/);
    expect(out).not.toMatch(/FAKE|Q7x2|51H8|1234567890-/);
    expect(redact(out)).toBe(out);
  });

  it('keeps prose about prefixes with no body of the shape after them', () => {
    for (const text of [
      'GitHub tokens start with ghp_ and are 40 characters long',
      'classic tokens use ghp_ then a random body; fine-grained ones use github_pat_ plus 82 characters',
      'Stripe keys: sk_live_ and sk_test_ prefixes',
      'the sk- prefix then abcdefghijklmnopqrstuvwxyz is not a key',
      'xoxb-\nhello world',
      'ghp_ and gho_ and ghs_ are GitHub prefixes',
    ]) expect(redact(text), text).toBe(text);
  });
});

describe('a split token whose connector is set apart (re-trial of trial 24)', () => {
  const body = 'Z2345abcdEFGH6789ijklMNOP0123qrstUV';
  for (const text of [`the token is ghp_ (then) ${body}`, `ghp_ [then] ${body}`, `ghp_ — then — ${body}`, `the key id is AKIA plus <7QXN3K2M9PLW4R8T>`])
    it(text.slice(0, 30), () => expectGone(text, /[A-Z0-9]{16}>|Z2345abcd/.exec(text)![0].replace('>', '')));
});
