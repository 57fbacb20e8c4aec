import { MnemaraError } from '../../config/errors.js';

// Kept free of the AWS SDK: every command parses store locations, only S3 stores load the SDK.

/** Where an S3 store lives: `s3://BUCKET/PREFIX` parsed. `prefix` has no leading or trailing `/` ('' = bucket root). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** True when a `--store`/`snapshot.store` value names an object store rather than a directory. */
export function isS3Url(store: string): boolean {
  return /^s3:\/\//i.test(store);
}

/**
 * Parses `s3://BUCKET[/PREFIX]` (the form `aws s3` uses). Throws `MnemaraError('INVALID_INPUT')` naming what is
 * wrong: a bucket name S3 does not allow, `..`/empty segments in the prefix.
 */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]*)\/?(.*)$/i.exec(url);
  const hint = 'Use --store s3://BUCKET/PREFIX, e.g. s3://team-mnemara/ci (bucket: 3-63 lowercase letters, digits, "." and "-").';
  if (!m) throw new MnemaraError('INVALID_INPUT', `not an s3:// store URL: ${JSON.stringify(url)}`, { hint });
  const bucket = m[1]!;
  const prefix = m[2]!.replace(/\/+$/, '');
  if (!BUCKET_RE.test(bucket)) throw new MnemaraError('INVALID_INPUT', `invalid bucket name ${JSON.stringify(bucket)} in ${url}`, { hint });
  if (prefix && prefix.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new MnemaraError('INVALID_INPUT', `invalid prefix ${JSON.stringify(prefix)} in ${url}: empty, "." or ".." segments`, { hint });
  }
  return { bucket, prefix };
}

/** The endpoint the SDK will use when one is configured in the environment (S3-compatible services), else undefined (AWS). */
export function endpointFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
}

