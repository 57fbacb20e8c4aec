import { knowSecretValue } from '../memory/redact-known.js';
import Anthropic from '@anthropic-ai/sdk';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';

/**
 * The model a run uses when none is configured: the newest Sonnet in `@anthropic-ai/sdk` 1.14's model list
 * (`Anthropic.Model`) that is not on its deprecation list (`claude-sonnet-4-5` reaches end-of-life 2026-11-30).
 */
export const DEFAULT_MODEL: Anthropic.Model = 'claude-sonnet-5-5';

/** The SDK's own retry count (429, 408, 409, 5xx incl. 529 overloaded), honouring `retry-after(-ms)`. */
export const DEFAULT_MAX_RETRIES = 4;

/**
 * Sent as the key when `baseURL` is a loopback address and no key is set: local Anthropic-compatible servers
 * (and mnemara's scripted test server) ignore it, and the SDK refuses to send a request without one.
 */
export const LOCAL_PLACEHOLDER_KEY = 'mnemara-local-no-key';

/** Options of {@link createModelClient}; each falls back to the environment, then to a default. */
export interface ModelClientOptions {
  /** Default `ANTHROPIC_API_KEY`, then `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token). */
  apiKey?: string;
  /** Default `ANTHROPIC_BASE_URL`, then `https://api.anthropic.com`. Gateways and local servers go here. */
  baseURL?: string;
  /** Retries of one model call by the SDK before the call fails; default {@link DEFAULT_MAX_RETRIES}. */
  maxRetries?: number;
  /** Per-request timeout in ms (the SDK's default is 10 minutes). */
  timeoutMs?: number;
  /** Where to read `ANTHROPIC_*` from; default `process.env` (tests pass their own). */
  env?: Record<string, string | undefined>;
}

/** A configured `@anthropic-ai/sdk` client plus what it was configured with (for error messages and logs). */
export interface ModelClient {
  readonly sdk: Anthropic;
  readonly baseURL: string;
  readonly maxRetries: number;
  /** Where the credential came from: `option`, `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, or `placeholder`. */
  readonly credentialSource: 'option' | 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN' | 'placeholder';
}

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * Builds the model client on `@anthropic-ai/sdk`. Key: `apiKey`, else `ANTHROPIC_API_KEY`, else
 * `ANTHROPIC_AUTH_TOKEN`; with none of them and a loopback `baseURL` (localhost, 127.0.0.0/8, ::1) a
 * placeholder key is sent ({@link LOCAL_PLACEHOLDER_KEY}). Retries (429/5xx/529) are the SDK's own.
 * The SDK's log lines (e.g. model deprecation warnings) go to pino, not the console.
 * @throws MnemaraError `INVALID_CONFIG` when no key is set for a non-local endpoint, or `baseURL` is not a URL.
 */
export function createModelClient(options: ModelClientOptions = {}): ModelClient {
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch (cause) {
    throw new MnemaraError('INVALID_CONFIG', `The Anthropic base URL ${JSON.stringify(baseURL)} is not a URL`, {
      hint: 'Set ANTHROPIC_BASE_URL (or --base-url) to e.g. https://api.anthropic.com or http://127.0.0.1:8080',
      cause,
    });
  }
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const credential = resolveCredential(options.apiKey, env, isLoopback(url.hostname));
  // Gateways echo a refused key in their error message: it must never be stored or printed (`redact-known.ts`).
  if (credential && credential.source !== 'placeholder') knowSecretValue(credential.value);
  if (!credential) {
    throw new MnemaraError('INVALID_CONFIG', `No Anthropic API key is set for ${baseURL}`, {
      hint: 'Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a gateway); for a local Anthropic-compatible server set ANTHROPIC_BASE_URL=http://127.0.0.1:<port>',
    });
  }
  const sdk = new Anthropic({
    ...(credential.kind === 'authToken' ? { authToken: credential.value, apiKey: null } : { apiKey: credential.value }),
    baseURL,
    maxRetries,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    logger: sdkLogger(),
  });
  return { sdk, baseURL, maxRetries, credentialSource: credential.source };
}

function resolveCredential(
  apiKey: string | undefined,
  env: Record<string, string | undefined>,
  local: boolean,
): { kind: 'apiKey' | 'authToken'; value: string; source: ModelClient['credentialSource'] } | undefined {
  if (nonEmpty(apiKey)) return { kind: 'apiKey', value: apiKey!, source: 'option' };
  const key = nonEmpty(env.ANTHROPIC_API_KEY);
  if (key) return { kind: 'apiKey', value: key, source: 'ANTHROPIC_API_KEY' };
  const token = nonEmpty(env.ANTHROPIC_AUTH_TOKEN);
  if (token) return { kind: 'authToken', value: token, source: 'ANTHROPIC_AUTH_TOKEN' };
  if (local) return { kind: 'apiKey', value: LOCAL_PLACEHOLDER_KEY, source: 'placeholder' };
  return undefined;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== '' ? s.trim() : undefined;
}

function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function sdkLogger(): NonNullable<ConstructorParameters<typeof Anthropic>[0]>['logger'] {
  const log = logger('agent.sdk');
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...rest: unknown[]): void => {
      log[level](rest.length ? { detail: rest } : {}, message);
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
