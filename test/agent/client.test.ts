import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { createModelClient, describeModelError, DEFAULT_MODEL, LOCAL_PLACEHOLDER_KEY, newRolloutId, ROLLOUT_ID_PATTERN } from '../../src/agent/index.js';
import { startMessagesServer, text, turn } from '../support/messages-server.js';

describe('createModelClient', () => {
  it('refuses a remote endpoint without a key and says what to set', () => {
    expect(() => createModelClient({ env: {} })).toThrow(/No Anthropic API key is set for https:\/\/api\.anthropic\.com/);
    try {
      createModelClient({ env: { ANTHROPIC_BASE_URL: 'https://gateway.example.com/' } });
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ code: 'INVALID_CONFIG' });
      expect((err as { hint: string }).hint).toContain('ANTHROPIC_API_KEY');
    }
  });

  it('honours ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, and sends the key', async () => {
    const server = await startMessagesServer([turn(text('hi'))]);
    try {
      const client = createModelClient({ env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-1' } });
      expect(client).toMatchObject({ baseURL: server.url, credentialSource: 'ANTHROPIC_API_KEY' });
      await client.sdk.messages.create({ model: DEFAULT_MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
      expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-1');
      expect(server.requests[0]!.body.model).toBe('claude-sonnet-5-5');
    } finally {
      await server.close();
    }
  });

  it('uses ANTHROPIC_AUTH_TOKEN for gateways, and a placeholder key only for loopback endpoints', () => {
    expect(createModelClient({ env: { ANTHROPIC_AUTH_TOKEN: 'tok', ANTHROPIC_BASE_URL: 'https://gw.example' } }).credentialSource).toBe('ANTHROPIC_AUTH_TOKEN');
    for (const url of ['http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9']) {
      expect(createModelClient({ baseURL: url, env: {} }).credentialSource).toBe('placeholder');
    }
    expect(LOCAL_PLACEHOLDER_KEY).not.toBe('');
    expect(() => createModelClient({ baseURL: 'not a url', env: {} })).toThrow(/not a URL/);
  });
});

describe('newRolloutId', () => {
  it('is time-sortable and unique', () => {
    const a = newRolloutId(new Date('2026-11-29T17:30:00.001Z'));
    const b = newRolloutId(new Date('2026-11-29T17:30:00.002Z'));
    const c = newRolloutId(new Date('2026-12-01T00:00:00.000Z'));
    expect(a.startsWith('20261129T173000001Z-')).toBe(true);
    expect([c, b, a].sort()).toEqual([a, b, c]);
    expect(a).toMatch(ROLLOUT_ID_PATTERN);
    const same = new Date();
    expect(newRolloutId(same)).not.toBe(newRolloutId(same));
  });
});

describe('describeModelError', () => {
  const client = { baseURL: 'http://127.0.0.1:1', maxRetries: 1 };
  it('passes MnemaraErrors through and calls a plain bug a bug', () => {
    expect(describeModelError(new TypeError('x is undefined'), client)).toMatchObject({ code: 'AGENT_ERROR', message: 'The run failed: x is undefined' });
    const own = describeModelError(new Error('plain'), client);
    expect(own.hint).toContain('bug');
    expect(describeModelError(new Anthropic.AnthropicError('runner broke'), client).code).toBe('MODEL_ERROR');
  });
});

// Thirteenth trial F6: a 200 answer that is no event stream (a proxy's page, another API's JSON) read as "request
// ended without sending any chunks", with no hint that the URL points at something else.
describe('describeModelError for a 200 answer that is not a Messages API stream', () => {
  it.each([
    ['an HTML page', 'text/html', '<html><body>Sign in to the proxy</body></html>'],
    ['a JSON document', 'application/json', '{"status":"ok","service":"not-anthropic"}'],
  ])('says the endpoint answered with something else (%s), and what to check', async (_what, type, body) => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const client = createModelClient({ env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ANTHROPIC_API_KEY: 'sk-ant-test-not-real-000000' } });
      const err = await client.sdk.messages
        .stream({ model: DEFAULT_MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage()
        .then(() => undefined, (e: unknown) => e);
      const described = describeModelError(err, client);
      expect(described.code).toBe('MODEL_ERROR');
      expect(described.message).toContain('answered, but not with a Messages API event stream');
      expect(described.hint).toContain('ANTHROPIC_BASE_URL');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
