import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipe } from '../first-failure.js';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { noProgress, type OnProgress } from '../../config/progress.js';
import type { BlobStore } from '../blobs.js';
import { isMaybeApplied, storeError } from './s3-client.js';
import type { S3Objects } from './s3-objects.js';

/** Sizes that decide how a blob is uploaded (bytes). */
export interface S3UploadOptions {
  /** Blobs of at least this size go up as multipart uploads (default 64 MiB). */
  multipartThreshold?: number;
  /** Part size of a multipart upload (default 16 MiB; S3's minimum is 5 MiB except for the last part). */
  partBytes?: number;
}

const MiB = 1024 * 1024;

/** `source` piped through `counting`, with errors of either side destroying the result (a bare pipe would hang). */
function counted(source: Readable, onBytes: (n: number) => void): Transform {
  const out = counting(onBytes);
  pipe([source, out]).catch((err: Error) => out.destroy(err));
  return out;
}

/** Passes bytes through, reporting the running count to `onBytes` at most every 4 MiB. */
function counting(onBytes: (n: number) => void): Transform {
  let n = 0;
  let reported = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      if (n - reported >= 4 * MiB) {
        reported = n;
        onBytes(n);
      }
      cb(null, chunk);
    },
  });
}

/**
 * Moves content-addressed blobs between a local `BlobStore` (the cache under MNEMARA_HOME) and the S3 store's
 * `blobs/sha256/<hex>`. Uploads stream from the cached file (single PUT with `If-None-Match: *`, or multipart
 * from `multipartThreshold` on: a blob is named by its digest, so an identical concurrent upload is harmless even
 * where the server ignores conditions on completion). Downloads are hashed on the way in and kept only when the
 * digest matches. Neither ever leaves a partial object or file visible.
 */
export class S3Blobs {
  private readonly threshold: number;
  private readonly partBytes: number;

  constructor(
    private readonly objects: S3Objects,
    readonly local: BlobStore,
    options: S3UploadOptions = {},
  ) {
    this.threshold = options.multipartThreshold ?? 64 * MiB;
    this.partBytes = Math.max(options.partBytes ?? 16 * MiB, 5 * MiB);
  }

  rel(digest: string): string {
    return `blobs/sha256/${digest.replace(/^sha256:/, '')}`;
  }

  /** True when the store holds the blob (its content is not checked). */
  async has(digest: string): Promise<boolean> {
    return (await this.objects.head(this.rel(digest))) !== null;
  }

  /**
   * Uploads a blob unless the store has it, from `path` (default: the local cache's copy; the caller vouches that
   * its bytes hash to `digest`). Returns the bytes sent (0 = already there).
   * Throws `MnemaraError('STORE_UNAVAILABLE'|'STORE_DENIED')`; ENOENT when the cache lacks the blob.
   */
  async upload(digest: string, onProgress: OnProgress = noProgress, path: string = this.local.pathOf(digest)): Promise<number> {
    if (await this.has(digest)) return 0;
    const { size } = await stat(path);
    const short = digest.slice(7, 19);
    onProgress({ step: 'upload', phase: 'start', message: `blob ${short} (${size} bytes)`, total: size, unit: 'bytes' });
    const report = (done: number): void => onProgress({ step: 'upload', phase: 'progress', done, total: size, unit: 'bytes' });
    // A streamed body cannot be replayed by the SDK's retries: a transient failure is retried here, from the file.
    for (let attempt = 1; ; attempt++) {
      try {
        if (size >= this.threshold) await this.multipart(digest, path, size, report);
        else await this.objects.putIfAbsentRaw(this.rel(digest), counted(createReadStream(path), report), size);
        break;
      } catch (err) {
        if (attempt >= 3 || !isMaybeApplied(err)) throw storeError(`uploading ${this.rel(digest)}`, this.objects.url, err);
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
    onProgress({ step: 'upload', phase: 'end', message: `blob ${short}`, done: size, total: size, unit: 'bytes' });
    return size;
  }

  private async multipart(digest: string, path: string, size: number, report: (n: number) => void): Promise<void> {
    const Bucket = this.objects.location.bucket;
    const Key = this.objects.key(this.rel(digest));
    const client = this.objects.client;
    let uploadId: string | undefined;
    try {
      uploadId = (await client.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId;
      const parts: CompletedPart[] = [];
      for (let start = 0, n = 1; start < size; start += this.partBytes, n++) {
        const end = Math.min(start + this.partBytes, size);
        const Body = createReadStream(path, { start, end: end - 1 });
        const out = await client.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber: n, Body, ContentLength: end - start }));
        parts.push({ PartNumber: n, ETag: out.ETag });
        report(end);
      }
      await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      if (uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => {});
      throw err;
    }
  }

  /**
   * Makes sure the local cache holds the blob: downloads it when absent, hashing it on the way in. Returns the bytes
   * downloaded (0 = cached), `'missing'` when the store lacks it, or `{ mismatch: <actual digest> }` when what came
   * down hashes to another digest (it is discarded). Throws `MnemaraError('STORE_UNAVAILABLE')` when the download fails.
   */
  async fetch(digest: string, onProgress: OnProgress = noProgress): Promise<number | 'missing' | { mismatch: string }> {
    if (await this.local.has(digest)) return 0;
    const got = await this.objects.getStream(this.rel(digest));
    if (!got) return 'missing';
    const short = digest.slice(7, 19);
    onProgress({ step: 'download', phase: 'start', message: `blob ${short} (${got.bytes} bytes)`, total: got.bytes, unit: 'bytes' });
    let written;
    try {
      written = await this.local.write(counted(got.body, (done) => onProgress({ step: 'download', phase: 'progress', done, total: got.bytes, unit: 'bytes' })));
    } catch (err) {
      got.body.destroy();
      throw storeError(`downloading ${this.rel(digest)}`, this.objects.url, err);
    }
    if (written.digest !== digest) {
      await this.local.remove(written.digest);
      return { mismatch: written.digest };
    }
    onProgress({ step: 'download', phase: 'end', message: `blob ${short}`, done: written.bytes, total: got.bytes, unit: 'bytes' });
    return written.bytes;
  }
}
