/**
 * Issue 12, item 5: token counts come from the endpoint's count_tokens when it has one (the real SDK's
 * `messages.countTokens` against the scripted server, which counts by its own deterministic rule), with the
 * conservative estimate otherwise, remembered per endpoint; the prompt block is sized by that count.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/client.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { buildMemoryBlock } from '../../src/memory/read.js';
import { blockCounter, countTokensUnsupported, estimateRequest, tokenCounter } from '../../src/memory/token-count.js';
import { estimateTokens } from '../../src/memory/tokens.js';
import { countTokensRule, startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { raw, tempWorkspace, writeRollout } from './helpers.js';

const REQ = { model: 'claude-test', system: 'You are terse.', messages: [{ role: 'user' as const, content: 'Bonjour — 数据库已经迁移到 MySQL. '.repeat(40) }] };
const count = (path: string) => (s: MessagesServer) => s.requests.filter((r) => r.path.startsWith(path)).length;
const countCalls = count('/v1/messages/count_tokens');

describe('tokenCounter', () => {
  let counting: MessagesServer;
  let plain: MessagesServer;
  beforeAll(async () => {
    counting = await startMessagesServer([]);
    plain = await startMessagesServer([], { countTokens: 'unsupported' });
  });
  afterAll(async () => {
    await counting.close();
    await plain.close();
  });

  it("asks the endpoint's count_tokens and returns its number", async () => {
    const c = tokenCounter(createModelClient({ baseURL: counting.url, apiKey: 'test', maxRetries: 0, env: {} }));
    const r = await c(REQ);
    expect(r.source).toBe('endpoint');
    expect(r.tokens).toBe(countTokensRule(counting.requests.at(-1)!.body));
    expect(r.tokens).not.toBe(estimateRequest(REQ));
  });

  it('an endpoint without count_tokens (404) gives the estimate, and is not asked again in this process', async () => {
    const c = tokenCounter(createModelClient({ baseURL: plain.url, apiKey: 'test', maxRetries: 0, env: {} }));
    expect(await c(REQ)).toEqual({ tokens: estimateRequest(REQ), source: 'estimate' });
    expect(countTokensUnsupported(plain.url)).toBe(true);
    // A second counter for the same endpoint (a later pipeline run in the same process) remembers it.
    const again = tokenCounter(createModelClient({ baseURL: plain.url, apiKey: 'test', maxRetries: 0, env: {} }));
    expect((await again(REQ)).source).toBe('estimate');
    expect(countCalls(plain)).toBe(1);
  });

  it('a failing count_tokens (500) gives the estimate once, without retries, and is asked again next time', async () => {
    const failing = await startMessagesServer([], { countTokens: 'failing' });
    try {
      const c = tokenCounter(createModelClient({ baseURL: failing.url, apiKey: 'test', maxRetries: 4, env: {} }));
      expect((await c(REQ)).source).toBe('estimate');
      expect(countCalls(failing)).toBe(1); // the client's own 4 retries are not used for a count
      expect(countTokensUnsupported(failing.url)).toBe(false);
      await c(REQ);
      expect(countCalls(failing)).toBe(2);
    } finally {
      await failing.close();
    }
  });

  it('without a client: the estimate, which counts a CJK character as at least one token', async () => {
    expect(await tokenCounter(undefined)(REQ)).toEqual({ tokens: estimateRequest(REQ), source: 'estimate' });
    expect(estimateTokens('数据库已经迁移')).toBeGreaterThanOrEqual(7);
  });
});

/** A made-up word per number (base 26), so that lessons share few words and do not merge as near-duplicates. */
const w = (n: number): string => {
  let s = '';
  for (let k = n + 1000; k > 0; k = Math.floor(k / 26)) s += String.fromCharCode(97 + (k % 26));
  return s;
};
const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();

describe('the prompt block is sized by the endpoint’s count', () => {
  it('leaves out more when the endpoint counts more than the estimate, and the counted block fits', async () => {
    const paths = await tempWorkspace();
    const server = await startMessagesServer([]);
    try {
      for (let i = 0; i < 14; i += 1) {
        await writeRollout(paths, `r-${i}`, day(i), [raw('pitfall', `${w(i)} ${w(i + 500)} ${w(i + 900)}: run \`${w(i + 1300)}-setup\` before \`make ${w(i + 1700)}\`, ${w(i + 2100)} ${w(i + 2500)}.`, 4)]);
      }
      await consolidate({ paths, config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 2000 }, mode: 'deterministic', now: () => new Date(day(40)) });
      const budget = 420;
      const estimated = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: budget });
      const client = createModelClient({ baseURL: server.url, apiKey: 'test', maxRetries: 0, env: {} });
      const counter = blockCounter(client, 'claude-test');
      const counted = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: budget, countBlock: counter });
      // The endpoint's rule (UTF-8 bytes / 3) counts more than the estimate (chars / 4): the estimated block is over.
      expect(await counter(estimated.text)).toBeGreaterThan(budget);
      expect(await counter(counted.text)).toBeLessThanOrEqual(budget);
      expect(counted.included.length).toBeGreaterThan(0);
      expect(counted.omitted.length).toBeGreaterThan(estimated.omitted.length);
      expect(counted.text).toContain(`${counted.omitted.length} more entr`);
      expect(countCalls(server)).toBeGreaterThan(0);
    } finally {
      await server.close();
      await rm(paths.workspaceDir, { recursive: true, force: true });
    }
  });
});
