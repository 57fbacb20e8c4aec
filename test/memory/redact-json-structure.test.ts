import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { redactFile } from '../../src/memory/redact-document.js';
import { SECRET_CORPUS } from './secret-corpus.js';

/**
 * Redaction runs over the text of JSON files (the consolidation state, raw memories, notes the agent keeps as
 * JSON) before a snapshot: a rule whose value took the closing `",` of a JSON string (the Chinese, Japanese and
 * Korean "password is X" forms did) left `memories/.state.json` invalid, and no later session consolidated
 * (issue 10, ninth trial). Every kind of the secret corpus, as a JSON string value in the middle of a document
 * and at the end of one, compact and indented: the redacted text still parses, and the secret is gone.
 */
const SHAPES: Array<[string, (text: string) => string]> = [
  ['compact, then another key', (t) => JSON.stringify({ note: t, n: 1 })],
  ['compact, last in an array', (t) => JSON.stringify({ notes: ['x', t] })],
  ['indented, then another key', (t) => JSON.stringify({ entries: [{ text: t, importance: 3 }] }, null, 2)],
  ['indented, last value', (t) => JSON.stringify({ a: 'x', text: t }, null, 2)],
  ['the value followed by a line in escaped quotes', (t) => JSON.stringify({ text: `${t}\n"and more"` })],
];

describe('redacting a JSON file of the memory layout keeps it a JSON document', () => {
  for (const [shape, wrap] of SHAPES) {
    it.each(SECRET_CORPUS.map((c) => [c.name, c] as const))(`${shape}: %s`, (_name, c) => {
      const doc = wrap(c.text);
      const out = redactFile('memories/notes.json', doc);
      expect(() => JSON.parse(out), out).not.toThrow();
      expect(out).not.toContain(c.secret);
    });
  }

  it('JSON lines: each line a document; a line that is not JSON is redacted as text', () => {
    const lines = [JSON.stringify({ type: 'note', text: '密码：FAKEmima9999' }), 'not json password=FAKEpw12345', JSON.stringify({ ok: 1 }), ''];
    const out = redactFile('sessions/r.jsonl', lines.join('\n')).split('\n');
    expect(JSON.parse(out[0]!)).toEqual({ type: 'note', text: '密码：[REDACTED:password]' });
    expect(out[1]).toBe('not json password=[REDACTED:password]');
    expect(out.slice(2)).toEqual(lines.slice(2));
  });

  it('keeps indentation, final newline and an untouched document byte for byte', () => {
    const doc = `${JSON.stringify({ a: { token: 'ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu' }, b: [1, 2] }, null, 4)}\n`;
    expect(redactFile('x.json', doc)).toBe(`${JSON.stringify({ a: { token: '[REDACTED:secret]' }, b: [1, 2] }, null, 4)}\n`);
    const tabbed = JSON.stringify({ note: 'nothing secret here' }, null, '\t');
    expect(redactFile('x.json', tabbed)).toBe(tabbed);
  });
});

describe('a CJK "password is" value stops at the quote that closes its string', () => {
  it.each([
    ['Korean', '비밀번호는 Secr3tKo'],
    ['Chinese', '密码是 Secr3tZh'],
    ['Japanese', 'パスワードは Secr3tJa'],
    ['German', 'das Passwort lautet Secr3tDe'],
  ])('%s, raw text of a JSON string (and so of YAML or code)', (_lang, text) => {
    const out = redact(JSON.stringify({ note: text, next: 'kept' }));
    expect(JSON.parse(out), out).toEqual({ note: expect.stringContaining('[REDACTED:password]'), next: 'kept' });
  });
});
