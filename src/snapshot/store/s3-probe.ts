import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { logger } from '../../config/logger.js';
import { isMaybeApplied, isPreconditionFailed, storeError } from './s3-client.js';
import { bareEtag, type S3Objects } from './s3-objects.js';

const log = logger('snapshot');

/** Bumped when the probe learns something new, so cached results from an older probe are redone. */
const PROBE_VERSION = 1;

/**
 * What one S3-compatible server does with conditional writes, found by `probeQuirks` (issue 14). Servers differ:
 * Ceph RGW 16 honours `If-Match` only with the ETag unquoted and returns an empty ETag from
 * CompleteMultipartUpload; some servers ignore conditions altogether, and then heads cannot be compare-and-swapped.
 */
export interface S3Quirks {
  probeVersion: number;
  /** `PutObject If-None-Match: *` refuses (412) a key that exists. */
  conditionalCreate: boolean;
  /** Which spelling of the ETag `If-Match` honours; `none` = neither form moved the object. */
  ifMatch: 'unquoted' | 'quoted' | 'none';
  /** `If-Match` with a wrong ETag is refused (412/5xx) rather than ignored. */
  staleIfMatchRefused: boolean;
  /** CompleteMultipartUpload answers with the object's ETag (`false` on RGW 16: empty; HEAD has it). */
  multipartEtag: boolean;
  /** ISO time of the probe. */
  probedAt: string;
}

/** True when heads can be moved by compare-and-swap on this server. */
export function casSupported(q: S3Quirks): boolean {
  return q.conditionalCreate && q.ifMatch !== 'none' && q.staleIfMatchRefused;
}

/** One line for `doctor` and logs. */
export function describeQuirks(q: S3Quirks): string {
  const parts = [
    `If-None-Match:* ${q.conditionalCreate ? 'honoured' : 'IGNORED'}`,
    q.ifMatch === 'none' ? 'If-Match IGNORED' : `If-Match needs the ETag ${q.ifMatch}`,
    `stale If-Match ${q.staleIfMatchRefused ? 'refused' : 'IGNORED'}`,
    `multipart ETag ${q.multipartEtag ? 'returned' : 'empty (read by HEAD)'}`,
  ];
  return `${parts.join(', ')}; heads by compare-and-swap: ${casSupported(q) ? 'yes' : 'NO'}`;
}

async function refused(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return false;
  } catch (err) {
    if (isPreconditionFailed(err) || isMaybeApplied(err)) return true;
    throw err;
  }
}

/**
 * Probes the server behind `objects` with throw-away keys under `.mnemara-probe/` (removed afterwards): a
 * conditional create twice, `If-Match` with the bare and the quoted ETag, `If-Match` with a stale one, and a
 * one-part multipart upload. Throws `MnemaraError('STORE_UNAVAILABLE'|'STORE_DENIED')` when the store cannot be used.
 */
export async function probeQuirks(objects: S3Objects): Promise<S3Quirks> {
  const key = `.mnemara-probe/${Date.now()}-${randomBytes(6).toString('hex')}`;
  try {
    await objects.putIfAbsent(key, 'one');
    const conditionalCreate = (await objects.putIfAbsentRaw(key, 'two').catch((err) => (isMaybeApplied(err) ? 'exists' : Promise.reject(err)))) === 'exists';
    const first = await objects.head(key);
    let etag = first?.etag ?? '';
    let ifMatch: S3Quirks['ifMatch'] = 'none';
    for (const form of ['unquoted', 'quoted'] as const) {
      const sent = form === 'quoted' ? `"${etag}"` : etag;
      const body = `three-${form}`;
      const ok = !(await refused(() => objects.putIfMatchRaw(key, body, sent)));
      const now = await objects.getText(key);
      if (ok && now?.text === body) {
        ifMatch = form;
        etag = now.etag;
        break;
      }
    }
    const stale = await refused(() => objects.putIfMatchRaw(key, 'four', '0123456789abcdef0123456789abcdef'));
    const staleIfMatchRefused = stale && (await objects.getText(key))?.text !== 'four';
    const multipartEtag = await probeMultipart(objects, `${key}-mp`);
    return { probeVersion: PROBE_VERSION, conditionalCreate, ifMatch, staleIfMatchRefused, multipartEtag, probedAt: new Date().toISOString() };
  } catch (err) {
    throw storeError('probing conditional writes', objects.url, err);
  } finally {
    await objects.remove(key).catch(() => {});
    await objects.remove(`${key}-mp`).catch(() => {});
  }
}

async function probeMultipart(objects: S3Objects, rel: string): Promise<boolean> {
  const { bucket } = objects.location;
  const Key = objects.key(rel);
  const created = await objects.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }));
  const part = await objects.client.send(new UploadPartCommand({ Bucket: bucket, Key, UploadId: created.UploadId, PartNumber: 1, Body: 'part' }));
  const done = await objects.client.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key,
      UploadId: created.UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    }),
  );
  return bareEtag(done.ETag) !== '';
}

/**
 * The probe result cached at `cacheFile` (JSON), probing once when absent or from an older probe. A cache that
 * cannot be written is logged and the result used anyway.
 */
export async function cachedQuirks(objects: S3Objects, cacheFile: string, options: { fresh?: boolean } = {}): Promise<S3Quirks> {
  if (!options.fresh) {
    try {
      const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as S3Quirks;
      if (cached.probeVersion === PROBE_VERSION) return cached;
    } catch {
      // absent or unreadable: probe again
    }
  }
  const quirks = await probeQuirks(objects);
  log.info({ store: objects.url, quirks }, 'probed S3 server');
  try {
    await mkdir(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(quirks, null, 2)}\n`);
    await rename(tmp, cacheFile);
  } catch (err) {
    log.warn({ err: (err as Error).message, cacheFile }, 'could not cache the S3 probe result');
  }
  return quirks;
}
