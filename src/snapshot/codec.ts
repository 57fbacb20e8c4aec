import { createGunzip } from 'node:zlib';
import { ParallelGzip } from './parallel-gzip.js';
import { PassThrough, type Transform } from 'node:stream';
import type { Layer } from './types.js';

export type Codec = Layer['codec'];

/**
 * Default gzip level, chosen by measurement (`npm run bench`, docs/snapshots.md): on this project's
 * node_modules level 1 packs ~3× faster than level 6 for ~12 % more bytes, which keeps pack time under
 * `tar -czf` while a second, memory-only snapshot stays tiny either way.
 */
export const DEFAULT_GZIP_LEVEL = 1;

/**
 * A stream that compresses with `codec` at `level` (gzip: 1–9). gzip is written as 1 MiB members compressed in
 * parallel (`parallel-gzip.ts`): one gzip stream for every reader, at the speed of both cores. zstd is not
 * available in Node 20's zlib (docs/snapshots.md, "Codec", says what it would buy).
 */
export function compressor(codec: Codec, level?: number): Transform {
  if (codec === 'gzip') return new ParallelGzip(level ?? DEFAULT_GZIP_LEVEL);
  if (codec === 'none') return new PassThrough();
  throw new Error(`codec ${codec} is not supported by this build (Node ${process.versions.node} has no zstd)`);
}

/** The matching decompressor; gzip trailing garbage is an error, not ignored. */
export function decompressor(codec: Codec): Transform {
  if (codec === 'gzip') return createGunzip({ chunkSize: 256 * 1024 }); // 256 KiB: fewer thread-pool round trips (measured 1.4x faster than 64 KiB)
  if (codec === 'none') return new PassThrough();
  throw new Error(`codec ${codec} is not supported by this build (Node ${process.versions.node} has no zstd)`);
}
