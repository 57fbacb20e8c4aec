/**
 * A scripted stand-in for the Anthropic Messages API, for tests and the clearly labelled offline demo.
 * It is NOT a model: it plays a script of assistant turns, one per `POST /v1/messages`, over the real
 * wire format (plain JSON, or SSE when the request says `stream: true`), so the real `@anthropic-ai/sdk`
 * can be pointed at it with `baseURL`.
 *
 * Wire format (https://docs.anthropic.com/en/api/messages, .../messages-streaming, .../errors):
 * - JSON: a `message` object with `content`, `stop_reason`, `usage`.
 * - SSE: `message_start`, `ping`, per block `content_block_start` / `content_block_delta`
 *   (`text_delta`, or `input_json_delta` in chunks for `tool_use`) / `content_block_stop`,
 *   then `message_delta` (stop_reason + output usage) and `message_stop`.
 * - Errors: status + `{"type":"error","error":{"type":"rate_limit_error","message":…},"request_id":…}`,
 *   with `retry-after-ms` / `retry-after` headers so the SDK's own retries wait only `retryAfterMs`.
 * - `POST /v1/messages/count_tokens` answers `{input_tokens}` by a deterministic rule ({@link countTokensRule}:
 *   one token per 3 UTF-8 bytes of the request's text, more than mnemara's estimate for English, as a real
 *   tokenizer often is); `countTokens: 'unsupported'` answers it 404 instead, like a gateway that lacks it.
 * - `contextTokens`: a `/v1/messages` request whose counted input is over it is refused with 400
 *   "prompt is too long: N tokens > W maximum" (as the API does), before it takes a script step.
 * - Server-side message threads (the `thread` param that SDK 1.14's tool runner sends by default) are NOT
 *   supported: such a request gets 400 saying so. Pass `thread: false` to `toolRunner()`; every request then
 *   carries the whole history, which is also what gateways and local servers need.
 *
 * Usage:
 * ```ts
 * const server = await startMessagesServer([
 *   turn(text('Let me look.'), toolUse('bash', { command: 'ls' })),
 *   (req) => turn(text(`saw: ${lastToolResults(req)[0]?.text}`)),   // a step may react to the request
 *   error(529),                                                      // the SDK retries this …
 *   turn(text('done')),                                              // … and gets this
 * ]);
 * const client = new Anthropic({ apiKey: 'test', baseURL: server.url });
 * // … run …
 * expect(server.requests[0].body.system).toContain('memory');
 * await server.close();
 * ```
 * A script may also be one function `(req, index) => step` (e.g. `() => error(429)` for a 429 storm).
 * When an array script runs out, the server answers 400 `invalid_request_error` "script exhausted"
 * (with `x-should-retry: false`) so the test fails loudly rather than hangs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** One content block of a scripted assistant turn. */
export type ScriptBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string; signature: string };

/** Token usage of one turn as the API reports it (tokens). Missing fields are estimated (chars / 4). */
export interface ScriptUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One assistant turn. `stopReason` defaults to `tool_use` when a block is a tool_use, else `end_turn`. */
export interface ScriptTurn {
  kind: 'turn';
  content: ScriptBlock[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal';
  usage?: ScriptUsage;
  /** Wait this long before answering (ms), e.g. to test interrupts mid-call. */
  delayMs?: number;
  /** SSE only: wait this long between events (ms). */
  chunkDelayMs?: number;
}

/** An API error response. `midStream` (SSE only) sends `message_start` then an `error` event instead. */
export interface ScriptError {
  kind: 'error';
  status: number;
  /** The API's error type; derived from `status` when absent. */
  errorType?: string;
  message?: string;
  /** Sent as `retry-after-ms` (and `retry-after`, in whole seconds ≥ 1 … only when ≥ 1000 ms). Default 5 ms. */
  retryAfterMs?: number;
  midStream?: boolean;
}

export type ScriptStepResult = ScriptTurn | ScriptError;
/** A step: a fixed turn/error, or a function of the request (and of the 0-based `/v1/messages` call index). */
export type ScriptStep = ScriptStepResult | ((req: RecordedRequest, index: number) => ScriptStepResult | Promise<ScriptStepResult>);
export type Script = ScriptStep[] | ((req: RecordedRequest, index: number) => ScriptStepResult | Promise<ScriptStepResult>);

/** One request as received: method, path (with query), lower-cased headers, parsed JSON body. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface MessagesServer {
  /** Base URL for the SDK's `baseURL` (no trailing slash, no `/v1`). */
  url: string;
  /** Every request in arrival order, including retried and count_tokens ones. */
  requests: RecordedRequest[];
  /** Only the `POST /v1/messages` requests. */
  readonly messageRequests: RecordedRequest[];
  close(): Promise<void>;
}

let idCounter = 0;
function newId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_${randomBytes(6).toString('hex')}${idCounter}`;
}

/** A text block. */
export function text(value: string): ScriptBlock {
  return { type: 'text', text: value };
}

/** A tool_use block; `id` defaults to a fresh `toolu_…`. */
export function toolUse(name: string, input: unknown, id: string = newId('toolu')): ScriptBlock {
  return { type: 'tool_use', id, name, input };
}

/** An assistant turn from blocks; pass `opts` for stop reason, usage or delays. */
export function turn(...blocks: Array<ScriptBlock | Omit<ScriptTurn, 'kind' | 'content'>>): ScriptTurn {
  const content: ScriptBlock[] = [];
  let opts: Omit<ScriptTurn, 'kind' | 'content'> = {};
  for (const b of blocks) {
    if ('type' in b) content.push(b);
    else opts = { ...opts, ...b };
  }
  return { kind: 'turn', content, ...opts };
}

/** An error step: `error(429)`, `error(529, { midStream: true })`, `error(500, { message: 'boom' })`. */
export function error(status: number, opts: Omit<ScriptError, 'kind' | 'status'> = {}): ScriptError {
  return { kind: 'error', status, ...opts };
}

/** The `tool_result` blocks of the request's last user message, with their content flattened to text. */
export function lastToolResults(req: RecordedRequest): Array<{ toolUseId: string; text: string; isError: boolean }> {
  const messages: Array<{ role: string; content: unknown }> = req.body?.messages ?? [];
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return [];
  return last.content
    .filter((b: { type?: string }) => b.type === 'tool_result')
    .map((b: { tool_use_id: string; content?: unknown; is_error?: boolean }) => ({
      toolUseId: b.tool_use_id,
      text: flatten(b.content),
      isError: b.is_error === true,
    }));
}

/** The system prompt of a request as one string (joins text blocks). */
export function systemText(req: RecordedRequest): string {
  return flatten(req.body?.system);
}

function flatten(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
  }
  return '';
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const estimate = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

/** How the server treats the request's tools. */
export interface MessagesServerOptions {
  /**
   * `portable`: behave like an Anthropic-compatible server that is not Anthropic's (llama.cpp's llama-server):
   * it knows only plain JSON-schema tools, so a request with a tool that has no `input_schema` (Anthropic's typed
   * tools, `bash_20250124` …) or whose schema is not an object with described properties is refused with 400.
   * Default `any`: tools are not checked.
   */
  tools?: 'any' | 'portable';
  /** `rule` (default): answer count_tokens with {@link countTokensRule}; `unsupported`: 404 it; `failing`: 500 it. */
  countTokens?: 'rule' | 'unsupported' | 'failing';
  /** The "model's" context window (tokens by {@link countTokensRule}); larger requests are refused with 400. */
  contextTokens?: number;
}

/**
 * The server's token count of a request: one token per 3 UTF-8 bytes (rounded up) of the system prompt, of
 * every message's text (text blocks, tool_result contents, tool_use inputs as JSON) and of the tools as JSON,
 * plus 3 per message. Deterministic, so a test can compute what the endpoint will say.
 */
export function countTokensRule(body: any): number {
  const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
  let n = Math.ceil(bytes(flatten(body?.system)) / 3);
  for (const m of (body?.messages ?? []) as Array<{ content: unknown }>) {
    n += 3;
    if (typeof m.content === 'string') n += Math.ceil(bytes(m.content) / 3);
    else if (Array.isArray(m.content)) {
      for (const b of m.content as Array<Record<string, unknown>>) {
        const t = b.type === 'text' ? String(b.text ?? '') : b.type === 'tool_result' ? flatten(b.content) : b.type === 'tool_use' ? JSON.stringify(b.input ?? {}) : '';
        n += Math.ceil(bytes(t) / 3);
      }
    }
  }
  if (body?.tools) n += Math.ceil(bytes(JSON.stringify(body.tools)) / 3);
  return n;
}

/** Why a portable-only server refuses `tools`, or null when every tool is a JSON-schema tool. */
export function portableToolProblem(tools: unknown): string | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return 'tools is not an array';
  for (const t of tools as Array<Record<string, unknown>>) {
    const name = String(t.name ?? '(no name)');
    if (typeof t.type === 'string' && t.type !== 'custom') return `tool ${name} is a typed tool (${t.type}) without input_schema`;
    const schema = t.input_schema as { type?: unknown; properties?: Record<string, { description?: unknown }> } | undefined;
    if (!schema) return `tool ${name} has no input_schema`;
    if (schema.type !== 'object') return `tool ${name}: input_schema.type is not "object"`;
    if (typeof t.description !== 'string' || !t.description) return `tool ${name} has no description`;
  }
  return null;
}

/** Starts the server on 127.0.0.1 (random port). Call `close()` when done. */
export async function startMessagesServer(script: Script, options: MessagesServerOptions = {}): Promise<MessagesServer> {
  const requests: RecordedRequest[] = [];
  let messageCalls = 0;

  const nextStep = async (req: RecordedRequest): Promise<ScriptStepResult> => {
    const index = messageCalls++;
    if (typeof script === 'function') return script(req, index);
    const step = script[index];
    if (step === undefined) {
      return { kind: 'error', status: 400, message: `script exhausted: no step ${index} (script has ${script.length})` };
    }
    return typeof step === 'function' ? step(req, index) : step;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, { kind: 'error', status: 500, message: `messages-server: ${String(err)}` });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body };
    requests.push(recorded);
    const path = (req.url ?? '').split('?')[0];

    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      if (options.countTokens === 'unsupported') return sendError(res, { kind: 'error', status: 404, message: `messages-server: no route ${req.method} ${path}` });
      if (options.countTokens === 'failing') return sendError(res, { kind: 'error', status: 500, message: 'scripted count_tokens failure' });
      return sendJson(res, 200, { input_tokens: countTokensRule(body) });
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      return sendError(res, { kind: 'error', status: 404, message: `messages-server: no route ${req.method} ${path}` });
    }
    if ((body as { thread?: unknown } | undefined)?.thread !== undefined) {
      return sendError(res, {
        kind: 'error',
        status: 400,
        message: 'messages-server: message threads (`thread`) are not supported; pass `thread: false` to the tool runner',
      });
    }
    if (options.tools === 'portable') {
      const problem = portableToolProblem((body as { tools?: unknown } | undefined)?.tools);
      if (problem) return sendError(res, { kind: 'error', status: 400, message: `messages-server (portable tools only): ${problem}` });
    }
    if (options.contextTokens !== undefined) {
      const counted = countTokensRule(body);
      if (counted > options.contextTokens) {
        return sendError(res, { kind: 'error', status: 400, message: `prompt is too long: ${counted} tokens > ${options.contextTokens} maximum` });
      }
    }
    const step = await nextStep(recorded);
    const stream = (body as { stream?: boolean } | undefined)?.stream === true;
    if (step.kind === 'error') {
      if (step.midStream && stream) return sendStreamError(res, step, recorded, raw);
      return sendError(res, step);
    }
    if (step.delayMs) await sleep(step.delayMs);
    const message = buildMessage(step, recorded, raw);
    if (!stream) return sendJson(res, 200, message, { 'request-id': newId('req') });
    return sendStream(res, message, step.chunkDelayMs ?? 0);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get messageRequests() {
      return requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/messages');
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

interface WireMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ScriptBlock[];
  stop_reason: string;
  stop_sequence: null;
  usage: Required<ScriptUsage>;
}

function buildMessage(step: ScriptTurn, req: RecordedRequest, raw: string): WireMessage {
  const hasToolUse = step.content.some((b) => b.type === 'tool_use');
  const out = JSON.stringify(step.content);
  return {
    id: newId('msg'),
    type: 'message',
    role: 'assistant',
    model: String(req.body?.model ?? 'scripted-model'),
    content: step.content,
    stop_reason: step.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: step.usage?.input_tokens ?? estimate(raw),
      output_tokens: step.usage?.output_tokens ?? estimate(out),
      cache_read_input_tokens: step.usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: step.usage?.cache_creation_input_tokens ?? 0,
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
  res.end(data);
}

function errorBody(step: ScriptError): unknown {
  const type = step.errorType ?? ERROR_TYPES[step.status] ?? 'api_error';
  return { type: 'error', error: { type, message: step.message ?? `scripted ${type}` }, request_id: newId('req') };
}

function sendError(res: ServerResponse, step: ScriptError): void {
  const retryAfterMs = step.retryAfterMs ?? 5;
  const headers: Record<string, string> = { 'request-id': newId('req'), 'retry-after-ms': String(retryAfterMs) };
  if (retryAfterMs >= 1000) headers['retry-after'] = String(Math.round(retryAfterMs / 1000));
  // Script exhaustion is a test bug: make the SDK give up at once instead of retrying.
  if (step.status === 400) headers['x-should-retry'] = 'false';
  sendJson(res, step.status, errorBody(step), headers);
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': newId('req') });
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

async function sendStream(res: ServerResponse, m: WireMessage, chunkDelayMs: number): Promise<void> {
  sseHead(res);
  const pause = async (): Promise<void> => {
    if (chunkDelayMs > 0) await sleep(chunkDelayMs);
  };
  sse(res, 'message_start', {
    type: 'message_start',
    message: { ...m, content: [], stop_reason: null, usage: { ...m.usage, output_tokens: 1 } },
  });
  sse(res, 'ping', { type: 'ping' });
  for (const [index, block] of m.content.entries()) {
    await pause();
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const part of split(block.text, 16)) {
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
        await pause();
      }
    } else if (block.type === 'tool_use') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      for (const part of split(JSON.stringify(block.input ?? {}), 12)) {
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        });
        await pause();
      }
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  }
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: m.stop_reason, stop_sequence: null },
    usage: { output_tokens: m.usage.output_tokens },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function sendStreamError(res: ServerResponse, step: ScriptError, req: RecordedRequest, raw: string): void {
  sseHead(res);
  const m = buildMessage({ kind: 'turn', content: [] }, req, raw);
  sse(res, 'message_start', { type: 'message_start', message: { ...m, stop_reason: null } });
  sse(res, 'error', errorBody(step));
  res.end();
}

function split(s: string, size: number): string[] {
  if (s.length === 0) return [''];
  // By code point, so a chunk never ends inside a surrogate pair.
  const chars = Array.from(s);
  const parts: string[] = [];
  for (let i = 0; i < chars.length; i += size) parts.push(chars.slice(i, i + size).join(''));
  return parts;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
