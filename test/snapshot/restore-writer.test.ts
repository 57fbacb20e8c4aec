import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { openStore } from '../../src/snapshot/index.js';
import { restoreTuning } from '../../src/snapshot/layers.js';
import { WriteQueue } from '../../src/snapshot/write-queue.js';
import { writeFailure } from '../../src/snapshot/write-failure.js';
import { encodeName } from '../../src/snapshot/names.js';
import { describeTreeBytes, tempDir } from './helpers.js';

// Every restore of this file (and of the suites imported below, which register their tests here) creates its
// files on the writer thread, whatever the layer's size: the hostile-archive guards, modes, links, deltas and
// path restores must hold there exactly as on the main thread. Vitest isolates test files, so others keep the default.
restoreTuning.writerMinBytes = 0;
await import('./hostile.test.js');
await import('./restore-modes.test.js');
await import('./hardlinks.test.js');
await import('./deltas.test.js');

describe('restore with the writer thread', () => {
  it('gives the same tree as the source: modes, times, empty and large files, links, non-UTF-8 names, deep paths', async () => {
    const src = tempDir();
    mkdirSync(join(src, 'a/b/c'), { recursive: true });
    for (let i = 0; i < 1500; i++) writeFileSync(join(src, 'a', `f${i}.txt`), `file ${i}\n`.repeat(i % 7));
    writeFileSync(join(src, 'a/b/big.bin'), Buffer.alloc(3 * 1024 * 1024, 9)); // over a batch: a batch of its own
    writeFileSync(join(src, 'a/b/huge.bin'), Buffer.alloc(5 * 1024 * 1024, 3)); // over SYNC_WRITE_BYTES: written directly, after the queue
    writeFileSync(join(src, 'a/b/c/x.sh'), '#!/bin/sh\n', { mode: 0o750 });
    writeFileSync(encodeName(join(src, 'a/n\udcfe.md')), 'latin-1 name\n');
    symlinkSync('../a/f1.txt', join(src, 'a/b/link'));
    symlinkSync('/etc/passwd', join(src, 'out'));
    linkSync(join(src, 'a/f2.txt'), join(src, 'a/b/hard'));
    mkdirSync(join(src, 'ro'), { mode: 0o555 });
    utimesSync(join(src, 'a/f3.txt'), 1_600_000_000, 1_600_000_000);
    utimesSync(join(src, 'a/b/c'), 1_500_000_000, 1_500_000_000);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'w', kind: 'workspace' });
    const out = join(tempDir(), 'out');
    await expect(store.restoreToDirectory(m.id, out)).resolves.toMatchObject({ files: expect.any(Number) });
    expect(describeTreeBytes(out)).toEqual(describeTreeBytes(src));
    expect(statSync(join(out, 'a/f3.txt')).mtimeMs).toBe(1_600_000_000_000);
    expect(statSync(join(out, 'a/b/c')).mtimeMs).toBe(1_500_000_000_000);
    expect(lstatSync(join(out, 'a/b/hard')).ino).toBe(lstatSync(join(out, 'a/f2.txt')).ino);
  }, 60_000);

  it('reports a failed write with its code, call and path, and runs nothing after it', async () => {
    const dir = tempDir();
    const q = new WriteQueue();
    try {
      q.file(join(dir, 'missing/f'), 0o644, Date.now(), [Buffer.from('x')], false);
      q.file(join(dir, 'after'), 0o644, Date.now(), [Buffer.from('y')], false);
      const err = (await q.flush().then(() => null, (e: unknown) => e)) as NodeJS.ErrnoException;
      expect(err).toMatchObject({ code: 'ENOENT', syscall: 'open', path: join(dir, 'missing/f') });
      expect(readdirSync(dir)).toEqual([]);
      await expect(q.room()).rejects.toBe(err);
      const shown = writeFailure(err, '/t', dir) as MnemaraError;
      expect(shown).toBeInstanceOf(MnemaraError);
      expect(shown.message).toMatch(/cannot restore into \/t: .*ENOENT, open.*\(missing\/f\)/);
    } finally {
      await q.close();
    }
  });

  it('refuses to write over anything already there (O_EXCL) and never follows a link (O_NOFOLLOW)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'taken'), 'old');
    symlinkSync(join(dir, 'taken'), join(dir, 'via'));
    for (const name of ['taken', 'via']) {
      const q = new WriteQueue();
      try {
        q.file(join(dir, name), 0o644, Date.now(), [Buffer.from('new')], false);
        await expect(q.flush()).rejects.toMatchObject({ code: 'EEXIST' });
      } finally {
        await q.close();
      }
    }
    expect(readFileSync(join(dir, 'taken'), 'utf8')).toBe('old');
  });
});
