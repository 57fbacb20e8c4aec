import type Anthropic from '@anthropic-ai/sdk';
import type { ModelClient } from '../agent/client.js';
import { logger } from '../config/logger.js';
import { estimateTokens } from './tokens.js';

/** One request to size: what `messages.create` would get (system prompt, messages, tools). */
export interface CountRequest {
  model: string;
  system?: string;
  messages: Anthropic.MessageParam[];
  tools?: Anthropic.Tool[];
}

/** Tokens of a request and where the number came from: the endpoint's `count_tokens`, or {@link estimateTokens}. */
export interface TokenCount {
  tokens: number;
  source: 'endpoint' | 'estimate';
}

/** Counts the input tokens of a request; never throws (an endpoint that cannot count gives the estimate). */
export type CountTokens = (request: CountRequest) => Promise<TokenCount>;

const log = logger('memory.tokens');

/** How long one count_tokens request may take (ms) before the estimate is used instead. */
const COUNT_TIMEOUT_MS = 10_000;

/**
 * Endpoints (base URLs) that answered `count_tokens` with 404/405/501 or a body without `input_tokens`: they are
 * not asked again in this process (a gateway or a local server that speaks only `/v1/messages`).
 */
const unsupported = new Set<string>();

/** Conservative estimate of a request: {@link estimateTokens} over its text parts and tool schemas, plus per-message overhead. */
export function estimateRequest(request: CountRequest): number {
  let n = estimateTokens(request.system ?? '') + 4;
  for (const m of request.messages) n += 4 + estimateTokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  for (const t of request.tools ?? []) n += estimateTokens(JSON.stringify(t)) + 8;
  return n;
}

/**
 * A token counter for `client`'s endpoint: `POST /v1/messages/count_tokens` through the SDK's
 * `messages.countTokens` (https://docs.anthropic.com/en/api/messages-count-tokens) when the endpoint has it, and
 * the conservative {@link estimateRequest} otherwise. An endpoint that answers 404, 405 or 501 (or a body with no
 * number) is remembered as unable to count, for the rest of the process, and asked no more; any other failure
 * (network, 5xx, 429, a timeout of 10 s; asked once, without the SDK's retries) gives the estimate for that
 * one request only.
 * Without a client every count is the estimate.
 */
export function tokenCounter(client: ModelClient | undefined): CountTokens {
  return async (request) => {
    if (!client || unsupported.has(client.baseURL)) return { tokens: estimateRequest(request), source: 'estimate' };
    try {
      // A count is an optimisation: one quick try, never the SDK's retries and 10-minute timeout.
      const r = await client.sdk.messages.countTokens(
        {
          model: request.model,
          messages: request.messages,
          ...(request.system !== undefined ? { system: request.system } : {}),
          ...(request.tools ? { tools: request.tools } : {}),
        },
        { maxRetries: 0, timeout: COUNT_TIMEOUT_MS },
      );
      if (typeof r?.input_tokens === 'number' && Number.isFinite(r.input_tokens) && r.input_tokens >= 0) return { tokens: r.input_tokens, source: 'endpoint' };
      unsupported.add(client.baseURL);
      log.info({ baseURL: client.baseURL }, 'count_tokens gave no input_tokens; estimating token counts for this endpoint');
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 404 || status === 405 || status === 501) {
        unsupported.add(client.baseURL);
        log.info({ baseURL: client.baseURL, status }, 'the endpoint has no count_tokens; estimating token counts for this endpoint');
      } else {
        log.warn({ baseURL: client.baseURL, status, err: (err as Error).message }, 'count_tokens failed; estimating this count');
      }
    }
    return { tokens: estimateRequest(request), source: 'estimate' };
  };
}

/** Whether this process has marked `baseURL` as an endpoint without `count_tokens`. Exported for tests. */
export function countTokensUnsupported(baseURL: string): boolean {
  return unsupported.has(baseURL);
}

/**
 * Counts a prompt block (text that goes into the system prompt) as `client`'s endpoint does: the count of a
 * request with the block as its system prompt minus that of the same request without it (asked once). Falls back
 * to {@link estimateTokens} where the endpoint cannot count. For `buildMemoryBlock`'s `countBlock`.
 */
export function blockCounter(client: ModelClient | undefined, model: string): (text: string) => Promise<number> {
  const count = tokenCounter(client);
  const probe: Anthropic.MessageParam[] = [{ role: 'user', content: '.' }];
  let baseline: Promise<TokenCount> | undefined;
  return async (text) => {
    baseline ??= count({ model, messages: probe });
    const [base, withBlock] = await Promise.all([baseline, count({ model, system: text, messages: probe })]);
    if (withBlock.source === 'estimate' || base.source === 'estimate') return estimateTokens(text);
    return Math.max(0, withBlock.tokens - base.tokens);
  };
}
