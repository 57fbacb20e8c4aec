import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipe } from './first-failure.js';
import { fsyncDir, writeAll } from './fs-atomic.js';

/** A sha256 digest as the manifest spells it: `sha256:<64 hex>`. */
export type Digest = `sha256:${string}`;

/** Counts and hashes the bytes that pass through it. */
export class HashingCounter extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}

/**
 * Content-addressed blobs under `<store>/blobs/sha256/<hex>` (DESIGN.md, "Snapshot store").
 * Writes go to `<store>/tmp/` first, are fsynced, then renamed into place, so a blob file that exists
 * is always complete; an identical blob already present is kept and the new copy dropped (dedupe).
 */
export class BlobStore {
  constructor(
    readonly root: string,
    private readonly tmpDir: string,
  ) {}

  /** Where the blob with `digest` (`sha256:<hex>` or bare hex) lives. */
  pathOf(digest: string): string {
    return join(this.root, 'sha256', digest.replace(/^sha256:/, ''));
  }

  /** True when the blob file exists (its content is not checked). */
  async has(digest: string): Promise<boolean> {
    return stat(this.pathOf(digest)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Streams `source` (already compressed) into a new blob. Returns its digest and size in bytes.
   * On any error the temporary file is removed and nothing becomes visible.
   */
  async write(source: Readable): Promise<{ digest: Digest; bytes: number }> {
    await mkdir(this.tmpDir, { recursive: true });
    await mkdir(join(this.root, 'sha256'), { recursive: true });
    const tmp = join(this.tmpDir, `blob-${process.pid}-${randomBytes(6).toString('hex')}`);
    const fh = await open(tmp, 'wx', 0o444);
    const counter = new HashingCounter();
    try {
      // The write's own ENOSPC, not the AbortError its loop leaves in the counter, is what failed (`pipe`).
      await pipe([source, counter, async (chunks: AsyncIterable<unknown>) => {
        for await (const c of chunks) await writeAll(fh, c as Buffer);
      }]);
      await fh.sync();
    } catch (err) {
      await fh.close().catch(() => {});
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await fh.close();
    const digest = `sha256:${counter.hash.digest('hex')}` as Digest;
    const final = this.pathOf(digest);
    if (await this.has(digest)) {
      await unlink(tmp);
      // A fresh mtime tells gc/prune (which spare blobs younger than their grace period) it is in use again.
      const now = new Date();
      await utimes(final, now, now).catch(() => {});
    } else {
      await rename(tmp, final);
      await fsyncDir(join(this.root, 'sha256'));
    }
    return { digest, bytes: counter.bytes };
  }

  /** A raw read stream of a blob (callers hash it: see `layers.ts`). Fails with ENOENT when absent. */
  read(digest: string): Readable {
    return createReadStream(this.pathOf(digest), { highWaterMark: 256 * 1024 });
  }

  /** sha256 of the stored bytes, and their count; throws ENOENT when the blob is missing. */
  async digestOf(digest: string): Promise<{ digest: Digest; bytes: number }> {
    const counter = new HashingCounter();
    await pipe([this.read(digest), counter, async (src: AsyncIterable<unknown>) => {
      for await (const _ of src) void _;
    }]);
    return { digest: `sha256:${counter.hash.digest('hex')}` as Digest, bytes: counter.bytes };
  }

  /** Every stored blob with its size and mtime (ms). */
  async all(): Promise<Array<{ digest: Digest; bytes: number; mtimeMs: number }>> {
    const dir = join(this.root, 'sha256');
    const out: Array<{ digest: Digest; bytes: number; mtimeMs: number }> = [];
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const st = await stat(join(dir, name)).catch(() => null);
      if (st?.isFile()) out.push({ digest: `sha256:${name}`, bytes: st.size, mtimeMs: st.mtimeMs });
    }
    return out;
  }

  /** Deletes a blob; a missing one is fine. */
  async remove(digest: string): Promise<void> {
    await rm(this.pathOf(digest), { force: true });
  }
}
