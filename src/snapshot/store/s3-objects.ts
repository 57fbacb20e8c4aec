import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { isNotFound, isPreconditionFailed, storeError, type S3Location } from './s3-client.js';

/** A small object read whole: its text and the ETag the server gave it (quotes stripped). */
export interface ObjectText {
  text: string;
  etag: string;
}

/** Strips the quotes (and a weak `W/` marker) from an ETag header value. */
export function bareEtag(etag: string | undefined): string {
  return (etag ?? '').replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

/**
 * The store's objects under `s3://bucket/prefix/`: keys are given relative to the prefix (the directory store's
 * relative paths), and every SDK failure becomes a `MnemaraError` naming the store (`storeError`).
 */
export class S3Objects {
  readonly url: string;

  constructor(
    readonly client: S3Client,
    readonly location: S3Location,
  ) {
    this.url = `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}`;
  }

  key(rel: string): string {
    return this.location.prefix ? `${this.location.prefix}/${rel}` : rel;
  }

  /** The object's text and ETag, or `null` when absent. */
  async getText(rel: string, client: S3Client = this.client): Promise<ObjectText | null> {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(rel) }));
      const text = (await out.Body?.transformToString('utf8')) ?? '';
      return { text, etag: bareEtag(out.ETag) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storeError(`reading ${rel}`, this.url, err);
    }
  }

  /** A read stream of the object's bytes, and its size; `null` when absent. */
  async getStream(rel: string): Promise<{ body: Readable; bytes: number } | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(rel) }));
      return { body: out.Body as Readable, bytes: out.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storeError(`reading ${rel}`, this.url, err);
    }
  }

  /** Size in bytes and ETag (quotes stripped), or `null` when absent. */
  async head(rel: string): Promise<{ bytes: number; etag: string } | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.key(rel) }));
      return { bytes: out.ContentLength ?? 0, etag: bareEtag(out.ETag) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storeError(`checking ${rel}`, this.url, err);
    }
  }

  /**
   * `PutObject` with `If-None-Match: *`: `'created'`, or `'exists'` when the key is already there (412).
   * Other failures are thrown unwrapped (SDK errors) so callers can tell "maybe applied" apart.
   */
  async putIfAbsentRaw(rel: string, body: string | Buffer | Readable, bytes?: number, client: S3Client = this.client): Promise<'created' | 'exists'> {
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: this.location.bucket,
          Key: this.key(rel),
          Body: body,
          IfNoneMatch: '*',
          ...(bytes !== undefined ? { ContentLength: bytes } : {}),
        }),
      );
      return 'created';
    } catch (err) {
      if (isPreconditionFailed(err)) return 'exists';
      throw err;
    }
  }

  /** `putIfAbsentRaw` with SDK failures wrapped (for immutable objects: blobs, manifests). */
  async putIfAbsent(rel: string, body: string | Buffer | Readable, bytes?: number): Promise<'created' | 'exists'> {
    try {
      return await this.putIfAbsentRaw(rel, body, bytes);
    } catch (err) {
      throw storeError(`writing ${rel}`, this.url, err);
    }
  }

  /** `PutObject` with `If-Match: etag` exactly as given (the caller picks the quoting the server honours). Unwrapped errors. */
  async putIfMatchRaw(rel: string, body: string, etag: string, client: S3Client = this.client): Promise<string> {
    const out = await client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(rel), Body: body, IfMatch: etag }));
    return bareEtag(out.ETag);
  }

  /** Unconditional `PutObject` (probe objects only: never for heads). */
  async put(rel: string, body: string): Promise<string> {
    try {
      const out = await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(rel), Body: body }));
      return bareEtag(out.ETag);
    } catch (err) {
      throw storeError(`writing ${rel}`, this.url, err);
    }
  }

  async remove(rel: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.key(rel) }));
    } catch (err) {
      if (!isNotFound(err)) throw storeError(`deleting ${rel}`, this.url, err);
    }
  }

  /** Keys (relative to the prefix) under `relDir/`, all pages. */
  async list(relDir: string): Promise<string[]> {
    const out: string[] = [];
    const base = `${this.key(relDir)}/`;
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: base, ...(token ? { ContinuationToken: token } : {}) }),
        );
        for (const o of page.Contents ?? []) if (o.Key) out.push(`${relDir}/${o.Key.slice(base.length)}`);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw storeError(`listing ${relDir}/`, this.url, err);
    }
    return out;
  }
}
