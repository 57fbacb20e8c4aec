import { PassThrough } from 'node:stream';
import { compressor, DEFAULT_GZIP_LEVEL, type Codec } from '../codec.js';
import type { BlobStore } from '../blobs.js';
import { FirstFailure, pipe } from '../first-failure.js';
import { TarWriter } from '../tar-write.js';
import type { Layer } from '../types.js';

/**
 * Produces one layer blob: `produce` writes tar entries, which are compressed with `codec`/`level` and
 * stored content-addressed (temp, fsync, rename). If `produce` or the blob write fails, the partial blob is
 * discarded and the cause is thrown (`FirstFailure`: a blob write's ENOSPC, not the abort it set off in the tar
 * side). Returns the manifest's layer record minus `delta` and `fileCount`.
 */
export async function writeLayerBlob<T>(
  blobs: BlobStore,
  codec: Codec,
  level: number | undefined,
  produce: (writer: TarWriter) => Promise<T>,
): Promise<{ layer: Omit<Layer, 'delta' | 'fileCount'>; result: T }> {
  // Room for a few of the writer's 1 MiB chunks: it keeps reading files while both gzip members are in flight.
  const tar = new PassThrough({ highWaterMark: 4 * 1024 * 1024 });
  const writer = new TarWriter(tar);
  const compress = compressor(codec, level);
  const failures = new FirstFailure();
  // Watched from the start: either may fail while `produce` still runs, long before it is awaited.
  const stored = failures.watch(blobs.write(compress));
  const feeding = failures.watch(pipe([tar, compress]));
  let result: T;
  try {
    // A failed blob write or compressor ends the wait for `produce` too: it may be blocked on a stream they destroyed.
    const failed = (p: Promise<unknown>): Promise<never> => p.then(() => new Promise<never>(() => {}));
    result = await Promise.race([failures.watch(produce(writer)), failed(stored), failed(feeding)]);
    await writer.end();
    tar.end();
    await feeding;
  } catch (err) {
    failures.note(err);
    tar.destroy(err as Error);
    compress.destroy(err as Error);
    await Promise.allSettled([stored, feeding]);
    throw failures.cause(err);
  }
  const { digest, bytes } = await stored;
  return {
    layer: { digest, compressedBytes: bytes, uncompressedBytes: writer.bytes, codec, ...(codec === 'gzip' ? { level: level ?? DEFAULT_GZIP_LEVEL } : {}) },
    result,
  };
}
