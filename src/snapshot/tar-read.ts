import { Transform, type Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import { UnsafeArchiveError } from './errors.js';

/**
 * Feeds an uncompressed tar stream to node-tar's `Parser` and calls `onEntry` for each entry in order,
 * waiting for it to finish before the next one is parsed (the handler must consume or `resume()` the entry).
 * Rejects on a read error, a parse error (bad checksum, truncated archive) or a handler error; on rejection
 * the input is destroyed. Pax/GNU long-name records are folded into the entries by the parser.
 */
export function readTar(input: Readable, onEntry: (entry: ReadEntry) => Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let failed = false;
    let pending: Promise<void> = Promise.resolve();
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      input.unpipe(tap);
      input.destroy();
      reject(err);
    };
    // node-tar calls an archive of nothing but end-of-archive blocks "unrecognized"; for us it is an empty
    // layer (a delta with no changes), so such an archive is accepted if every byte of it is zero.
    let entries = 0;
    let allZero = true;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        if (allZero && chunk.some((b) => b !== 0)) allZero = false;
        cb(null, chunk);
      },
    });
    const complain = (code: string, message: string): void => {
      if (code === 'TAR_BAD_ARCHIVE' && entries === 0 && allZero) return;
      fail(new UnsafeArchiveError(`unreadable archive (${code}: ${message})`));
    };
    const parser = new Parser({
      strict: true,
      onwarn: (code: string, message: string | Error) => {
        if (code === 'TAR_ENTRY_INFO') return;
        complain(code, message instanceof Error ? message.message : message);
      },
    });
    parser.on('entry', (entry: ReadEntry) => {
      entries += 1;
      if (failed) return entry.resume();
      entry.pause();
      pending = pending.then(async () => {
        if (failed) return void entry.resume();
        try {
          await onEntry(entry);
        } catch (err) {
          entry.resume();
          fail(err);
        }
      });
    });
    parser.on('error', (err: Error & { code?: string }) => complain(err.code ?? 'TAR_ERROR', err.message));
    parser.on('end', () => {
      void pending.then(() => {
        if (!failed) resolve();
      });
    });
    input.on('error', fail);
    tap.on('error', fail);
    input.pipe(tap).pipe(parser as never);
  });
}

/** Reads an entry's whole content into memory (callers check `entry.size` against their cap first). */
export async function readEntryBuffer(entry: ReadEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
