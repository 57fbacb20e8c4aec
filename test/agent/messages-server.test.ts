import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  error,
  lastToolResults,
  startMessagesServer,
  systemText,
  text,
  toolUse,
  turn,
  type MessagesServer,
} from '../support/messages-server.js';

let server: MessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const client = (url: string, maxRetries = 2): Anthropic => new Anthropic({ apiKey: 'test-key', baseURL: url, maxRetries });

describe('messages-server (scripted Messages API)', () => {
  it('answers plain JSON with tool_use, usage and stop_reason', async () => {
    server = await startMessagesServer([turn(text('hi'), toolUse('bash', { command: 'ls' }, 'toolu_1'), { usage: { input_tokens: 7 } })]);
    const m = await client(server.url).messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      system: 'SYS',
      messages: [{ role: 'user', content: 'go' }],
    });
    expect(m.stop_reason).toBe('tool_use');
    expect(m.content).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
    ]);
    expect(m.usage.input_tokens).toBe(7);
    expect(systemText(server.requests[0]!)).toBe('SYS');
    // SDK 1.14 sends the key as a bearer token.
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
  });

  it('streams SSE that the SDK assembles, incl. input_json_delta and non-ASCII text', async () => {
    const input = { command: 'echo "héllo 🙂" && ls -la /workspace', restart: false };
    server = await startMessagesServer([turn(text('Ünïcode 🙂 '.repeat(5)), toolUse('bash', input, 'toolu_2'))]);
    const stream = client(server.url).messages.stream({
      model: 'm',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'go' }],
    });
    let deltas = '';
    stream.on('text', (t) => (deltas += t));
    const m = await stream.finalMessage();
    expect(deltas).toBe('Ünïcode 🙂 '.repeat(5));
    expect(m.content[1]).toEqual({ type: 'tool_use', id: 'toolu_2', name: 'bash', input });
    expect(m.stop_reason).toBe('tool_use');
    expect(m.usage.output_tokens).toBeGreaterThan(1);
  });

  it('lets a step react to the tool results in the request', async () => {
    server = await startMessagesServer([(req) => turn(text(`got ${lastToolResults(req)[0]?.text} err=${lastToolResults(req)[0]?.isError}`))]);
    const m = await client(server.url).messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'out', is_error: true }] },
      ],
    });
    expect(m.content[0]).toEqual({ type: 'text', text: 'got out err=true' });
  });

  it('sends 429/529 with the API error body; the SDK retries and then succeeds', async () => {
    server = await startMessagesServer([error(429), error(529), turn(text('ok'))]);
    const m = await client(server.url).messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] });
    expect(m.content[0]).toEqual({ type: 'text', text: 'ok' });
    expect(server.messageRequests).toHaveLength(3);
  });

  it('a 429 storm exhausts the SDK retries with a RateLimitError carrying the error type', async () => {
    server = await startMessagesServer(() => error(429, { message: 'slow down' }));
    const err = await client(server.url, 2)
      .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(429);
    expect(String((err as Error).message)).toContain('slow down');
    expect(server.messageRequests).toHaveLength(3);
  });

  it('a mid-stream error event surfaces as an APIError', async () => {
    server = await startMessagesServer([error(529, { midStream: true })]);
    const err = await client(server.url, 0)
      .messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(String((err as Error).message)).toContain('overloaded_error');
  });

  it('fails loudly, without retries, when the script runs out', async () => {
    server = await startMessagesServer([]);
    const err = await client(server.url).messages
      .create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((err as Error).message)).toContain('script exhausted');
    expect(server.messageRequests).toHaveLength(1);
  });
});

describe('messages-server limits', () => {
  it('refuses server-side message threads with a 400 that says what to do', async () => {
    const s = await startMessagesServer([turn(text('never'))]);
    try {
      const err = await client(s.url)
        .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }], thread: { type: 'create' } } as never)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect(String((err as Error).message)).toContain('thread: false');
    } finally {
      await s.close();
    }
  });
});
