import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ioFailureCode } from '../../config/io-errors.js';
import { compressor, DEFAULT_GZIP_LEVEL, type Codec } from '../codec.js';
import type { BlobStore } from '../blobs.js';
import { TarWriter } from '../tar-write.js';
import type { Layer } from '../types.js';

/** Whether `err` is the host's own errno failure (`ENOSPC`, `EIO`, …), not a stream's abort or premature close. */
const hostFailure = (err: unknown): boolean => ioFailureCode(err) !== null;

/**
 * Produces one layer blob: `produce` writes tar entries, which are compressed with `codec`/`level` and
 * stored content-addressed (temp, fsync, rename). If `produce` throws, the partial blob is discarded and
 * the error rethrown. Returns the manifest's layer record minus `delta` and `fileCount`.
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
  const stored = blobs.write(compress);
  const feeding = pipeline(tar, compress);
  let result: T;
  try {
    result = await produce(writer);
    await writer.end();
    tar.end();
    await feeding;
  } catch (err) {
    feeding.catch(() => {}); // rejects with the same error once the streams are destroyed
    tar.destroy(err as Error);
    compress.destroy(err as Error);
    // A failed blob write (ENOSPC mid-stream) destroys the compressor, and the tar side then sees only "The
    // operation was aborted" or "Premature close": the store's own errno error is the one that says what happened.
    const storeErr = await stored.then(() => null, (e: unknown) => e);
    throw hostFailure(storeErr) && !hostFailure(err) ? storeErr : err;
  }
  const { digest, bytes } = await stored;
  return {
    layer: { digest, compressedBytes: bytes, uncompressedBytes: writer.bytes, codec, ...(codec === 'gzip' ? { level: level ?? DEFAULT_GZIP_LEVEL } : {}) },
    result,
  };
}
