import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): `SESSION_SIGNING_VALUE=9fK2…` (a random value under a name that does not say
 * secret, shorter than the 32 characters the rule needed) was kept. The rule, both sides: a random value in
 * assignment context goes; hashes, ids and integrity strings that are data stay.
 */
/** Values made for this test by hand from a random generator (fixed, so the test is the same every run). */
const V22 = 'q7Rm2KxV9pLt4WzN8cHs3B';
const V26 = 'Zt5wQ9nLm2XkR7vB4pHc8JdF3s';
const V28 = 'hY4kP8wN2qLz6RtV9mXc3BjF7sDg';
const V36 = 'Lp8Qx2Vn7Kz4Wm9Rt3Hc6Bd1Jf5Gs0Ya8Ne';
const V40 = 'c9Tz2Lq7Wx4Vm8Kp3Rn6Hb1Jd5Gf0Ys8Ne2Qa7';

describe('high-entropy values under a name that does not say secret', () => {
  it.each([
    ['env, 31 characters', `SESSION_SIGNING_VALUE=9fK2mQ8xLp3Vz7Rt1Wb6Nc4Hd0Js5Ga`, '9fK2mQ8xLp3Vz7Rt1Wb6Nc4Hd0Js5Ga'],
    ['env, 22 characters', `WEBHOOK_VALIDATION=${V22}`, V22],
    ['export, quoted', `export CACHE_SEED="${V28}"`, V28],
    ['YAML', `service:\n  signing_material: ${V36}\n`, V36],
    ['JSON', `{"sessionValue": "${V26}"}`, V26],
    ['INI', `[app]\nhmac_material = ${V40}\n`, V40],
    ['base64 of 24 random bytes', `COOKIE_MATERIAL=${Buffer.from(V22 + 'x').toString('base64')}`, Buffer.from(V22 + 'x').toString('base64')],
  ])('%s', (_name, input, value) => {
    const out = redact(input);
    expect(out).not.toContain(value);
    expect(out).toContain('[REDACTED:');
    expect(redact(out)).toBe(out);
  });

  it('leaves hashes, ids, integrity strings and code that are data exactly as they are', () => {
    for (const text of [
      // package-lock.json, yarn.lock, pnpm-lock.yaml, Cargo.lock, go.sum, poetry.lock
      '"node_modules/express": {\n  "version": "4.21.2",\n  "resolved": "https://registry.npmjs.org/express/-/express-4.21.2.tgz",\n  "integrity": "sha512-28HqgMZAmih1Czt9ny7qr6ek2qddF4FclbMzwhCREB6OFfH+rXAnuNCwo1/wFvrtbgsQDb4kSbX9de9lFbrXnA=="\n}',
      'express@^4.21.2:\n  version "4.21.2"\n  integrity sha512-28HqgMZAmih1Czt9ny7qr6ek2qddF4FclbMzwhCREB6OFfH+rXAnuNCwo1/wFvrtbgsQDb4kSbX9de9lFbrXnA==',
      '  /express@4.21.2:\n    resolution: {integrity: sha512-28HqgMZAmih1Czt9ny7qr6ek2qddF4FclbMzwhCREB6OFfH+rXAnuNCwo1/wFvrtbgsQDb4kSbX9de9lFbrXnA==}',
      '[[package]]\nname = "serde"\nversion = "1.0.215"\nchecksum = "6513c1ad0b11a9376da888e3e0baa0077f1aed55c17f50e7b2397136129fb88f"',
      'github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=',
      'files = [\n    {file = "idna-3.10-py3-none-any.whl", hash = "sha256:946d195a0d259cbba61165e88e65941f16e9b36ea6ddb97f00452bae8b1287d3"},\n]',
      // git SHAs, digests, UUIDs, image references
      'GIT_COMMIT=3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b',
      'BUILD_DIGEST=sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'request_id=6F1C2A4E-8B3D-4C5E-9F7A-1B2C3D4E5F60 trace_id=6f1c2a4e8b3d4c5e9f7a1b2c3d4e5f60',
      '"etag": "W8xKp2Lm9Qr4Tz7Vb1Nc6Hd3Js0Ga5Yf"',
      '"contentHash": "W8xKp2Lm9Qr4Tz7Vb1Nc6Hd3Js0Ga5Yf"',
      // code: identifiers, member expressions, alphabets, versions, file names
      'const kind = UserProfileCard2Props;',
      'this.type = jsx_syntax_1.JSXSyntax.JSXClosingElement;',
      "const CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';",
      'IMAGE=ubuntu-22.04-x86_64-Server3 VERSION=v1.2.3-beta.4+Build5',
      'test_name: TestCase_Login_Admin_01',
      'ENTRY=src/Components/UserProfileCard2.tsx',
    ]) expect(redact(text), text).toBe(text);
  });
});
