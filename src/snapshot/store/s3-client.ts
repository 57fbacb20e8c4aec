import { S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { endpointFromEnv } from './s3-url.js';
export { endpointFromEnv, isS3Url, parseS3Url, type S3Location } from './s3-url.js';
import { MnemaraError } from '../../config/errors.js';
import { logger } from '../../config/logger.js';

const log = logger('snapshot');

/** The SDK's log lines go to our logger (debug): without one it writes warnings to the console. */
const sdkLogger = {
  trace: () => {},
  debug: (...a: unknown[]) => log.debug({ sdk: a.map(String).join(' ') }, 's3 sdk'),
  info: (...a: unknown[]) => log.debug({ sdk: a.map(String).join(' ') }, 's3 sdk'),
  warn: (...a: unknown[]) => log.debug({ sdk: a.map(String).join(' ') }, 's3 sdk warning'),
  error: (...a: unknown[]) => log.debug({ sdk: a.map(String).join(' ') }, 's3 sdk error'),
};

/** Options of `makeS3Client`; everything else comes from the SDK's standard chain (env, profiles, IMDS). */
export interface S3ClientOptions {
  /** Path-style URLs (`endpoint/bucket/key`); default: on when a custom endpoint is set or `AWS_S3_FORCE_PATH_STYLE=true`. */
  forcePathStyle?: boolean;
  /** SDK attempts per request (default 3). Head writes use 1: a retried conditional PUT must be decided by re-reading. */
  maxAttempts?: number;
  /** Per-request socket timeout in ms (default 60,000). */
  requestTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * An `S3Client` for the snapshot store. Credentials, region and endpoint come from the SDK's chain
 * (`AWS_ACCESS_KEY_ID`…, `AWS_PROFILE`, `AWS_REGION`, `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`). Checksums are
 * computed only when an operation requires them: the SDK's default (always, as a trailer) makes S3-compatible
 * servers refuse streamed bodies (Ceph RGW: 411 MissingContentLength) and is checked by our own digests anyway.
 */
export function makeS3Client(options: S3ClientOptions = {}): S3Client {
  const env = options.env ?? process.env;
  const endpoint = endpointFromEnv(env);
  const config: S3ClientConfig = {
    // The SDK reads these variables itself; passing the endpoint makes an `env` other than process.env count too.
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? (endpoint !== undefined || env.AWS_S3_FORCE_PATH_STYLE === 'true'),
    logger: sdkLogger,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: { requestTimeout: options.requestTimeoutMs ?? 60_000, connectionTimeout: 5_000 },
    ...(env.AWS_REGION || env.AWS_DEFAULT_REGION ? {} : { region: 'us-east-1' }),
  };
  return new S3Client(config);
}

/** HTTP status of an SDK error, or undefined for a network error / timeout (no response). */
export function httpStatus(err: unknown): number | undefined {
  if (err instanceof S3ServiceException) return err.$metadata?.httpStatusCode;
  const meta = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return meta?.httpStatusCode;
}

/** 404 / NoSuchKey / NotFound. */
export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return httpStatus(err) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/** 412 Precondition Failed: the condition of a conditional write did not hold. */
export function isPreconditionFailed(err: unknown): boolean {
  return httpStatus(err) === 412 || (err as { name?: string } | null)?.name === 'PreconditionFailed';
}

/**
 * A conditional write whose outcome is unknown: a 5xx (Ceph RGW answers 500 to most losers of an If-Match race),
 * AWS's 409 ConditionalRequestConflict, a timeout or a dropped connection. The caller must re-read and decide.
 */
export function isMaybeApplied(err: unknown): boolean {
  const status = httpStatus(err);
  if (status === undefined) return true;
  return status >= 500 || status === 409;
}

/** Wraps an SDK failure into a `MnemaraError('STORE_UNAVAILABLE')` that says what was being done and where. */
export function storeError(what: string, where: string, err: unknown): MnemaraError {
  if (err instanceof MnemaraError) return err;
  const status = httpStatus(err);
  const name = (err as { name?: string } | null)?.name ?? 'Error';
  const denied = status === 403 || name === 'CredentialsProviderError' || name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch';
  return new MnemaraError(
    denied ? 'STORE_DENIED' : 'STORE_UNAVAILABLE',
    `S3 store ${where}: ${what} failed: ${name}${status ? ` (HTTP ${status})` : ''}: ${(err as Error).message}`,
    {
      hint: denied
        ? 'Check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) and that they may read and write this bucket.'
        : 'Check AWS_ENDPOINT_URL (for S3-compatible servers), AWS_REGION, the bucket name and the network; `mnemara doctor --store …` probes the store.',
      cause: err,
    },
  );
}
