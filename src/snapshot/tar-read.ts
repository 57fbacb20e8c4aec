import type { Readable } from 'node:stream';
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
      input.unpipe(parser as never);
      input.destroy();
      reject(err);
    };
    const parser = new Parser({
      strict: true,
      onwarn: (code: string, message: string | Error) => {
        if (code === 'TAR_ENTRY_INFO') return;
        fail(new UnsafeArchiveError(`unreadable archive (${code}: ${message instanceof Error ? message.message : message})`));
      },
    });
    parser.on('entry', (entry: ReadEntry) => {
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
    parser.on('error', (err: Error) => fail(new UnsafeArchiveError(`unreadable archive: ${err.message}`)));
    parser.on('end', () => {
      void pending.then(() => {
        if (!failed) resolve();
      });
    });
    input.on('error', fail);
    input.pipe(parser as never);
  });
}

/** Reads an entry's whole content into memory (callers check `entry.size` against their cap first). */
export async function readEntryBuffer(entry: ReadEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
