import { expect } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/** Asserts `redact(text)` drops `value`, leaves a marker, and is stable when redacted again. */
export function expectGone(text: string, value: string): void {
  const out = redact(text);
  expect(out, text).not.toContain(value);
  expect(out).toMatch(/\[REDACTED:[a-z_]+\]/);
  expect(redact(out)).toBe(out);
}

/** Asserts each text comes out of `redact` unchanged (a look-alike that is no secret). */
export const kept = (texts: string[]): void => {
  for (const text of texts) expect(redact(text), text).toBe(text);
};
