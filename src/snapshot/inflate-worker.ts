import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { Codec } from './codec.js';

/**
 * The worker's code (plain CommonJS, so it runs the same under tsx, vitest and the built CLI): reads the blob,
 * hashes the compressed bytes, gunzips, and posts the tar bytes to the main thread. It stops reading while more
 * than `MAX_AHEAD` bytes are posted but not yet taken by the main thread (which acks what it takes).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createReadStream } = require('node:fs');
const { createHash } = require('node:crypto');
const { createGunzip } = require('node:zlib');
const MAX_AHEAD = ${8 * 1024 * 1024};
const hash = createHash('sha256');
const raw = createReadStream(workerData.path, { highWaterMark: 256 * 1024 });
raw.on('data', (c) => hash.update(c));
const out = workerData.codec === 'gzip' ? raw.pipe(createGunzip({ chunkSize: 256 * 1024 })) : raw;
let ahead = 0;
const fail = (err) => parentPort.postMessage({ type: 'error', message: err.message, code: err.code });
raw.on('error', fail);
out.on('error', fail);
out.on('data', (c) => {
  ahead += c.length;
  // Transferred, so the main thread (the restore's bottleneck) takes it without a copy. zlib fills one buffer
  // of chunkSize at a time and starts a new one once it is full, so a full chunk owns its memory and goes as it
  // is; a partial one (the tail of a write, or a raw blob's read) is copied first, since the rest of its
  // buffer still belongs to the stream. Every fresh page costs a fault, so each byte is allocated once.
  const whole = c.byteOffset === 0 && c.length === c.buffer.byteLength && c.length >= 64 * 1024;
  const ab = whole ? c.buffer : c.buffer.slice(c.byteOffset, c.byteOffset + c.length);
  parentPort.postMessage({ type: 'data', chunk: new Uint8Array(ab) }, [ab]);
  if (ahead > MAX_AHEAD) out.pause();
});
out.on('end', () => parentPort.postMessage({ type: 'end', digest: 'sha256:' + hash.digest('hex') }));
parentPort.on('message', (m) => {
  ahead -= m.ack;
  if (ahead <= MAX_AHEAD && out.isPaused()) out.resume();
});
`;

/** Acks are sent once this many bytes were taken (well under the worker's 8 MiB lead, so it never waits on them). */
const ACK_BATCH_BYTES = 2 * 1024 * 1024;

/** Blobs smaller than this are decompressed on the main thread: starting a worker costs tens of ms. */
export const WORKER_MIN_BYTES = 4 * 1024 * 1024;

/**
 * Decompresses the blob file at `path` (`codec`: gzip or none) on a worker thread, so that gunzip keeps running
 * while the main thread is blocked creating files (a restore's two halves overlap instead of taking turns, as
 * `tar -xzf` overlaps gzip and tar in two processes). Returns the uncompressed tar stream and the sha256 of
 * the blob's bytes (`sha256:<hex>`), which resolves after the stream ends. The stream fails with the file's
 * error (its `code`, e.g. ENOENT, kept) or a decompression error; destroying it stops the worker.
 */
export function inflateInWorker(path: string, codec: Codec): { stream: Readable; digest: Promise<string> } {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, codec } });
  let resolveDigest!: (d: string) => void;
  let rejectDigest!: (e: Error) => void;
  const digest = new Promise<string>((res, rej) => {
    resolveDigest = res;
    rejectDigest = rej;
  });
  digest.catch(() => {});
  let owed = 0; // bytes taken but not yet acked: acked in batches (each message wakes the worker), when a chunk arrives or the stream asks for more
  const stream = new Readable({
    highWaterMark: 1024 * 1024,
    read() {
      // Only batches: the worker pauses at 8 MiB unacked, so a stream that wants more while owing less than a
      // batch still has data coming (a message per read cost the main thread ~0.1 s per 100 MB).
      if (owed >= ACK_BATCH_BYTES) {
        worker.postMessage({ ack: owed });
        owed = 0;
      }
    },
    destroy(err, cb) {
      void worker.terminate();
      rejectDigest(err ?? new Error('inflate stream destroyed'));
      cb(err);
    },
  });
  worker.on('message', (m: { type: string; chunk?: Uint8Array; digest?: string; message?: string; code?: string }) => {
    if (m.type === 'data') {
      const buf = Buffer.from(m.chunk!.buffer, m.chunk!.byteOffset, m.chunk!.byteLength);
      owed += buf.length;
      if (stream.push(buf) && owed >= ACK_BATCH_BYTES) {
        worker.postMessage({ ack: owed });
        owed = 0;
      }
    } else if (m.type === 'end') {
      resolveDigest(m.digest!);
      stream.push(null);
      void worker.terminate();
    } else if (m.type === 'error') {
      stream.destroy(Object.assign(new Error(m.message), { code: m.code }));
    }
  });
  worker.on('error', (err) => stream.destroy(err));
  return { stream, digest };
}
