import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateInWorker } from '../../src/snapshot/inflate-worker.js';
import { encodeName } from '../../src/snapshot/names.js';
import { WriteQueue } from '../../src/snapshot/write-queue.js';
import { tempDir } from './helpers.js';

describe('WriteQueue batches', () => {
  it('writes every kind of record in order: names as strings (multi-byte UTF-8) or bytes, batch and op-count boundaries', async () => {
    const dir = tempDir();
    const q = new WriteQueue();
    const expected = new Map<string, Buffer>();
    try {
      q.mkdir(join(dir, 'é/ü'), 0o755);
      // Names whose UTF-8 is longer than the string: a record sized by string length would overlap the next one.
      for (let i = 0; i < 1300; i++) {
        const name = join(dir, 'é/ü', `ß${'€'.repeat(i % 40)}-${i}`);
        const body = Buffer.from(`${i}:${'x'.repeat(i % 900)}`);
        q.file(name, 0o640, 1_600_000_123_000, [body.subarray(0, 3), body.subarray(3)], false);
        expected.set(name, body);
      }
      // Contents that straddle and exceed the 1 MiB batch: one just under, one over (a batch of its own).
      const near = randomBytes(1024 * 1024 - 100);
      const over = randomBytes(2 * 1024 * 1024 + 7);
      q.file(join(dir, 'near'), 0o600, 1_500_000_000_000, [near], false);
      q.file(join(dir, 'over'), 0o2750, 1_500_000_000_000, [over], true);
      q.file(join(dir, 'empty'), 0o644, 1_500_000_000_000, [], false);
      const bytesName = encodeName(join(dir, 'n\udcfe'));
      q.file(bytesName, 0o644, 1_500_000_000_000, [Buffer.from('bytes name')], false);
      q.symlink(encodeName(join(dir, 'l\udcfd')), encodeName('target\udcfc/€'), 1_400_000_000_000);
      q.symlink(join(dir, 'plain-link'), '../é', 1_400_000_000_000);
      q.link(bytesName, join(dir, 'hard'));
      await q.flush();
    } finally {
      await q.close();
    }
    for (const [name, body] of expected) expect(readFileSync(name)).toEqual(body);
    expect(statSync([...expected.keys()][7]!).mtimeMs).toBe(1_600_000_123_000);
    expect(statSync([...expected.keys()][7]!).mode & 0o7777).toBe(0o640);
    expect(statSync(join(dir, 'over')).mode & 0o7777).toBe(0o2750);
    expect(readFileSync(join(dir, 'empty')).length).toBe(0);
    expect(readlinkSync(encodeName(join(dir, 'l\udcfd')), { encoding: 'buffer' })).toEqual(encodeName('target\udcfc/€'));
    expect(lstatSync(encodeName(join(dir, 'l\udcfd'))).mtimeMs).toBe(1_400_000_000_000);
    expect(readlinkSync(join(dir, 'plain-link'))).toBe('../é');
    expect(readFileSync(join(dir, 'hard'), 'utf8')).toBe('bytes name');
    expect(lstatSync(join(dir, 'hard')).ino).toBe(lstatSync(encodeName(join(dir, 'n\udcfe'))).ino);
  }, 60_000);

  it('reports a failure on a string or a bytes name with its code and call (a string name as it was given)', async () => {
    const dir = tempDir();
    for (const name of [join(dir, 'missing/é'), encodeName(join(dir, 'missing/\udcfe'))]) {
      const q = new WriteQueue();
      try {
        q.file(name, 0o644, Date.now(), [Buffer.from('x')], false);
        const err = (await q.flush().then(() => null, (e: unknown) => e)) as NodeJS.ErrnoException;
        expect(err).toMatchObject({ code: 'ENOENT', syscall: 'open' });
        if (typeof name === 'string') expect(err.path).toBe(name);
      } finally {
        await q.close();
      }
    }
  });
});

describe('inflateInWorker', () => {
  it('gives the blob’s bytes exactly, with a consumer slower than the worker (paused and resumed, acked in batches)', async () => {
    // Mixed content: gunzip's output comes both in whole buffers (handed over as they are) and in partial ones (copied).
    const tar = Buffer.concat(Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? randomBytes(700_000) : Buffer.alloc(900_000 + i, i))));
    const blob = join(tempDir(), 'blob.gz');
    const gz = gzipSync(tar);
    writeFileSync(blob, gz);
    const { stream, digest } = inflateInWorker(blob, 'gzip');
    const got: Buffer[] = [];
    let n = 0;
    for await (const c of stream as AsyncIterable<Buffer>) {
      got.push(Buffer.from(c)); // copied: the test must not keep views into buffers that could be reused
      if (++n % 8 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(Buffer.concat(got).equals(tar)).toBe(true);
    expect(await digest).toBe(`sha256:${createHash('sha256').update(gz).digest('hex')}`);
  }, 60_000);
});
