/**
 * Trial 21 F10 (low): `mnemara recover` with a key set but no reachable endpoint left every rollout pending with
 * "Connection error." alone. It now names the endpoint and the way out (the deterministic extractor); a refusal
 * by the endpoint (a bad request, a key it rejects) is no such case.
 */
import { describe, expect, it } from 'vitest';
import { unreachableModelHint } from '../../src/cli/commands/recover.js';
import { loadConfig } from '../../src/config/load.js';

describe('recover, when the memory model could not be reached', () => {
  const { config } = loadConfig({ env: {} });
  it('names the endpoint and the deterministic extractor', () => {
    const [hint] = unreachableModelHint([{ pendingErrors: { a: 'Connection error.', b: 'request timed out' } }, { pendingErrors: { c: 'Connection error.' } }], config);
    expect(hint).toMatch(/3 extraction\(s\) could not reach the memory model at \S+/);
    expect(hint).toContain('--set memory.extractor=deterministic');
    expect(hint).toContain('nothing is lost');
  });
  it('says nothing for refusals or when nothing failed', () => {
    expect(unreachableModelHint([{ pendingErrors: { a: '400 invalid_request_error: prompt is too long' } }, {}], config)).toEqual([]);
  });
});
