import { redact } from '../memory/redact.js';
import Anthropic from '@anthropic-ai/sdk';
import { MnemaraError } from '../config/errors.js';
import type { ModelClient } from './client.js';

/**
 * Turns what a model call threw into a `MnemaraError` that says what failed and what to do.
 * Codes: `MODEL_RATE_LIMITED` (429 after the SDK's retries), `MODEL_OVERLOADED` (529), `MODEL_SERVER_ERROR`
 * (other 5xx), `MODEL_AUTH` (401/403), `MODEL_UNREACHABLE` (connection/timeout), `MODEL_REQUEST` (other 4xx),
 * `MODEL_ERROR` (any other SDK error), `AGENT_ERROR` (anything else: a bug). Retries are the SDK's; by the time this runs they are used up.
 */
export function describeModelError(err: unknown, client: Pick<ModelClient, 'baseURL' | 'maxRetries'>): MnemaraError {
  if (err instanceof MnemaraError) return err;
  const tries = `after ${client.maxRetries} ${client.maxRetries === 1 ? 'retry' : 'retries'}`;
  if (err instanceof Anthropic.APIConnectionTimeoutError || err instanceof Anthropic.APIConnectionError) {
    return new MnemaraError('MODEL_UNREACHABLE', `Could not reach the model API at ${client.baseURL} ${tries}: ${err.message}`, {
      hint: 'Check the network and ANTHROPIC_BASE_URL',
      cause: err,
    });
  }
  if (err instanceof Anthropic.APIError) {
    // The API's own words may repeat what the request carried (a gateway echoes the key it refused): redacted
    // before they reach a message, a transcript or a summary.
    const detail = redact(apiDetail(err));
    const status = err.status;
    if (status === 429) {
      return new MnemaraError('MODEL_RATE_LIMITED', `The model API kept answering 429 (rate limited) ${tries}: ${detail}`, {
        hint: 'Wait and run again, lower the run rate, or raise the rate limit of the API key',
        cause: err,
      });
    }
    if (status === 529 || err.type === 'overloaded_error') {
      return new MnemaraError('MODEL_OVERLOADED', `The model API is overloaded (529) ${tries}: ${detail}`, {
        hint: 'Run again later',
        cause: err,
      });
    }
    if (status === 401 || status === 403) {
      return new MnemaraError('MODEL_AUTH', `The model API refused the credentials (${status}): ${detail}`, {
        hint: 'Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) for this endpoint',
        cause: err,
      });
    }
    if (status !== undefined && status >= 500) {
      return new MnemaraError('MODEL_SERVER_ERROR', `The model API failed with ${status} ${tries}: ${detail}`, {
        hint: 'Run again later; if it persists, check the API status page or your gateway',
        cause: err,
      });
    }
    return new MnemaraError('MODEL_REQUEST', `The model API rejected the request (${status ?? 'stream error'}): ${detail}`, {
      hint: 'Check the model name and options; the message above is the API’s own',
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Anthropic.AnthropicError) {
    // The SDK's words when a 200 answer was not an event stream (a proxy's login page, a JSON error of a gateway
    // that is no Messages API): said as what it means (thirteenth trial F6).
    const notAStream = /without sending any chunks|Could not parse message into JSON|Unexpected event order/i.test(message);
    return new MnemaraError('MODEL_ERROR', `The model client failed: ${message}${notAStream ? ` (${client.baseURL} answered, but not with a Messages API event stream)` : ''}`, {
      ...(notAStream ? { hint: 'Check that ANTHROPIC_BASE_URL points at an Anthropic Messages API (POST /v1/messages with stream: true), not at a web page, a login proxy or another API; `curl -sS -N $ANTHROPIC_BASE_URL/v1/messages …` shows what it answers' } : {}),
      cause: err,
    });
  }
  return new MnemaraError('AGENT_ERROR', `The run failed: ${message}`, {
    hint: 'This is likely a bug in mnemara; the transcript so far is kept on the host',
    cause: err,
  });
}

function apiDetail(err: InstanceType<typeof Anthropic.APIError>): string {
  const parts = [err.type, err.apiMessage].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length ? parts.join(': ') : err.message;
}
