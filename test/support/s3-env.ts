import { randomBytes } from 'node:crypto';
import { openSnapshotStore, type S3Store, type S3StoreOptions } from '../../src/snapshot/index.js';
import type { SnapshotConfig } from '../../src/config/snapshot.js';

/**
 * The S3 endpoint the tests use, from the environment `scripts/s3-local.sh up` prints (AWS_ENDPOINT_URL,
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, MNEMARA_S3_BUCKET), or any other S3-compatible service
 * given the same way. `skip` says why the S3 suites cannot run; under CI=true a missing endpoint is a failure.
 */
export function s3TestEnv(): { bucket: string; skip?: undefined } | { bucket?: undefined; skip: string } {
  const bucket = process.env.MNEMARA_S3_BUCKET;
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL;
  const missing = [bucket ? '' : 'MNEMARA_S3_BUCKET', endpoint || process.env.AWS_ACCESS_KEY_ID ? '' : 'AWS_ENDPOINT_URL (or AWS credentials)'].filter(Boolean);
  if (missing.length === 0) return { bucket: bucket! };
  const reason = `S3 store tests skipped: ${missing.join(' and ')} not set. Run: eval "$(bash scripts/s3-local.sh up)"`;
  if (process.env.CI) throw new Error(`${reason} (CI=true: .ci/run must start the local S3 server first)`);
  console.warn(reason);
  return { skip: reason };
}

/** A fresh, empty prefix in the test bucket, as a store URL. */
export function freshS3Url(bucket: string, label = 'test'): string {
  return `s3://${bucket}/${label}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Opens the S3 store at `url` with its cache in `cacheDir` (one per simulated machine). */
export async function openS3(url: string, cacheDir: string, options: Partial<S3StoreOptions> & { config?: Partial<SnapshotConfig> } = {}): Promise<S3Store> {
  return (await openSnapshotStore(url, options.config ?? {}, { ...options, cacheDir })) as S3Store;
}
