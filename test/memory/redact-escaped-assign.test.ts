/**
 * Round 5 gap: `NAME=\"value\"` inside JSON-escaped text (a tool call serialized into a transcript line, an
 * event log, a rollout summary quoting it) was not caught; the unescaped `NAME="value"` was. Every depth of
 * escaping, both quote kinds, several secret names; ordinary settings in the same form stay as written.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

const PW = 'Xk9vQ2mLp4Rt8wZq';
const cases: [string, string][] = [
  ['a bash call serialized once', JSON.stringify({ command: `export DB_PASSWORD="${PW}" && npm run migrate` })],
  ['a docker env flag', JSON.stringify({ command: `docker run -e POSTGRES_PASSWORD="${PW}" postgres:16` })],
  ['single quotes', JSON.stringify({ command: `SESSION_SECRET='${PW}' node server.js` })],
  ['serialized twice (a transcript line inside a JSON log)', JSON.stringify({ line: JSON.stringify({ command: `STRIPE_WEBHOOK_SECRET="${PW}" yarn dev` }) })],
  ['a Python subprocess env in JSON', JSON.stringify({ code: `subprocess.run("AWS_SECRET_ACCESS_KEY=\\"${PW}\\" aws s3 ls", shell=True)` })],
];

describe('NAME=\\"value\\" in JSON-escaped text', () => {
  for (const [what, text] of cases) {
    it(`redacts the value: ${what}`, () => {
      const out = redact(text);
      expect(out).not.toContain(PW);
      expect(out).toMatch(/\[REDACTED:(password|secret)\]/);
      // Still the same JSON shape: only the value changed.
      expect(() => JSON.parse(out)).not.toThrow();
    });
  }

  it('leaves settings that are no secret exactly as written', () => {
    const text = JSON.stringify({ command: 'NODE_ENV="production" PORT="3000" LOG_LEVEL="debug" DATABASE_URL="postgres://localhost:5432/app_dev" npm start' });
    expect(redact(text)).toBe(text);
  });
});
