/**
 * A stream pipeline reports the failure that happened first, not the abort it set off (issue 10 trial: a blob
 * write's ENOSPC reached the user as "The operation was aborted"), and a tar writer waiting for a drain of a
 * stream that a failure elsewhere destroyed fails instead of waiting forever (the process then ended with exit 13,
 * nothing pending). Real streams, a real blob store; the write failure is a real one (EBADF on a closed file: no
 * full disk is needed to fail a write the way ENOSPC does), and a real full disk: a 1 MiB tmpfs mounted for the
 * test (needs root, as the CI's Docker setup does).
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/snapshot/blobs.js';
import { writeLayerBlob } from '../../src/snapshot/store/layer-writer.js';
import { writeAll } from '../../src/snapshot/fs-atomic.js';
import { FirstFailure, isEcho, pipe } from '../../src/snapshot/first-failure.js';
import { TarWriter } from '../../src/snapshot/tar-write.js';
import { tempDir } from './helpers.js';

/** A source of `n` 64 KiB chunks, then a last stage writing them into a file closed under its feet. */
async function failingWrite(): Promise<{ source: Readable; sink: (chunks: AsyncIterable<unknown>) => Promise<void> }> {
  const fh = await open(join(tempDir(), 'blob'), 'w');
  await fh.close(); // every write now fails with a real errno error (EBADF), as a full disk fails it (ENOSPC)
  const source = Readable.from((function* () {
    for (let i = 0; i < 64; i++) yield Buffer.alloc(64 * 1024, i);
  })());
  return {
    source,
    sink: async (chunks) => {
      for await (const c of chunks) await writeAll(fh, c as Buffer);
    },
  };
}

describe('pipe', () => {
  it('rejects with the write failure that a plain pipeline reports as the abort it caused', async () => {
    const plain = await failingWrite();
    const viaPipeline = await pipeline(plain.source, new PassThrough(), plain.sink).then(() => null, (e: unknown) => e);
    const ours = await failingWrite();
    const viaPipe = await pipe([ours.source, new PassThrough(), ours.sink]).then(() => null, (e: unknown) => e);
    expect((viaPipe as NodeJS.ErrnoException).code).toBe('EBADF');
    // What the trial saw: Node's pipeline reports the abort that the failed write left in the stream it read.
    expect(isEcho(viaPipeline)).toBe(true);
  });

  it('rejects with the error an inner stream emitted, not the premature close of the others', async () => {
    const source = new PassThrough();
    const middle = new PassThrough();
    const failing = pipe([source, middle, new PassThrough()]);
    const cause = Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' });
    middle.destroy(cause);
    await expect(failing).rejects.toBe(cause);
  });
});

describe('FirstFailure', () => {
  it('prefers a host failure, then the first real error, over echoes, whatever their order', () => {
    const f = new FirstFailure();
    const abort = Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
    const real = new Error('the source changed');
    const full = Object.assign(new Error('write failed'), { code: 'ENOSPC' });
    f.note(abort);
    f.note(real);
    expect(f.cause(abort)).toBe(real);
    f.note(full);
    expect(f.cause(abort)).toBe(full);
    expect(new FirstFailure().cause(abort)).toBe(abort);
  });

  it('handles a watched promise that rejects before it is awaited (no unhandled rejection)', async () => {
    const f = new FirstFailure();
    const cause = Object.assign(new Error('write failed'), { code: 'ENOSPC' });
    const p = f.watch(Promise.reject(cause));
    await new Promise((r) => setImmediate(r)); // an unhandled rejection would be reported by now
    await expect(p).rejects.toBe(cause);
    expect(f.cause(null)).toBe(cause);
  });
});

describe('TarWriter on a stream destroyed while it waits for a drain', () => {
  it('fails with the stream error instead of waiting forever', async () => {
    const out = new PassThrough({ highWaterMark: 1024 }); // never read: the first full chunk waits for a drain
    const writer = new TarWriter(out);
    const writing = writer.write(Buffer.alloc(8 * 1024 * 1024)).then(() => null, (e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    out.destroy(); // as a failed blob write destroys the compressor and then the tar side, with no error here
    const err = (await writing) as NodeJS.ErrnoException;
    expect(err?.code).toBe('ERR_STREAM_DESTROYED');
    await expect(writer.write(Buffer.alloc(8 * 1024 * 1024))).rejects.toMatchObject({ code: 'ERR_STREAM_DESTROYED' });
  });
});

describe('on a full disk (a 1 MiB tmpfs)', () => {
  let disk: string;
  beforeAll(async () => {
    // Not a tempDir(): those are removed after each test, and a mount point cannot be.
    disk = mkdtempSync(join(tmpdir(), 'mnemara-full-'));
    await execa('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk]);
  });
  afterAll(async () => {
    await execa('umount', ['-l', disk]).catch(() => undefined);
    rmSync(disk, { recursive: true, force: true });
  });
  const incompressible = (): Readable => Readable.from((function* () {
    for (let i = 0; i < 64; i++) yield randomBytes(64 * 1024);
  })());

  it('a blob write rejects with ENOSPC, not "The operation was aborted"', async () => {
    const blobs = new BlobStore(join(disk, 'blobs'), join(disk, 'tmp'));
    await expect(blobs.write(incompressible())).rejects.toMatchObject({ code: 'ENOSPC' });
  });

  it('a layer blob write rejects with ENOSPC, whatever the tar side was doing', async () => {
    const blobs = new BlobStore(join(disk, 'blobs'), join(disk, 'tmp'));
    const failed = writeLayerBlob(blobs, 'gzip', 1, async (w) => {
      for await (const chunk of incompressible()) await w.write(chunk as Buffer);
    });
    await expect(failed).rejects.toMatchObject({ code: 'ENOSPC' });
  });
});
