import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openStore, UnsafeArchiveError, type DirectoryStore } from '../../src/snapshot/index.js';
import { extractTar } from '../../src/snapshot/extract.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { describeTree, tempDir } from './helpers.js';
import { buildTar, plantSnapshot, type RawEntry } from './tar-builder.js';

const ok: RawEntry[] = [{ path: 'sub/', type: 'Directory' }, { path: 'sub/ok.txt', body: 'fine' }];

const hostile: Record<string, RawEntry[]> = {
  'absolute path': [{ path: '/tmp/mnemara-evil', body: 'x' }],
  'dot-dot segment': [{ path: '../mnemara-evil', body: 'x' }],
  'dot-dot in the middle': [...ok, { path: 'sub/../../mnemara-evil', body: 'x' }],
  'dot-dot segment among backslash names': [{ path: 'a\\b/../../evil', body: 'x' }],
  'file written through a symlink': [...ok, { path: 'link', type: 'SymbolicLink', linkpath: 'sub' }, { path: 'link/f', body: 'x' }],
  'file written through an absolute symlink': [{ path: 'etc', type: 'SymbolicLink', linkpath: '/etc' }, { path: 'etc/mnemara-evil', body: 'x' }],
  'directory created through an outward symlink': [{ path: 'up', type: 'SymbolicLink', linkpath: '../..' }, { path: 'up/evil/', type: 'Directory' }],
  'hardlink to an absolute path': [{ path: 'pw', type: 'Link', linkpath: '/etc/passwd' }],
  'hardlink out by dot-dot': [{ path: 'pw', type: 'Link', linkpath: '../../etc/passwd' }],
  'hardlink to a symlink': [...ok, { path: 's', type: 'SymbolicLink', linkpath: 'sub/ok.txt' }, { path: 'h', type: 'Link', linkpath: 's' }],
  'character device': [{ path: 'null', type: 'CharacterDevice' }],
  'block device': [{ path: 'sda', type: 'BlockDevice' }],
  FIFO: [{ path: 'pipe', type: 'FIFO' }],
  'path over 4096 bytes': [{ path: `${'a/'.repeat(2100)}f`, body: 'x' }],
  'segment over 255 bytes': [{ path: 'x'.repeat(300), body: 'x' }],
  '10,000-deep directory': [
    ...Array.from({ length: 300 }, (_, i) => ({ path: `${'d/'.repeat(i + 1)}`, type: 'Directory' as const })),
    { path: `${'d/'.repeat(10_000)}f`, body: 'deep' },
  ],
  'declared size over the cap (bomb by header)': [{ path: 'huge', size: 20 * 1024 ** 3 }],
};

async function expectRefusedRestore(store: DirectoryStore, tar: Buffer, gz?: Buffer): Promise<UnsafeArchiveError | Error> {
  const m = await plantSnapshot(store, tar, gz);
  const target = join(tempDir(), 'target');
  mkdirSync(target);
  writeFileSync(join(target, 'keep.txt'), 'precious');
  const before = describeTree(target);
  const err = (await store.restoreToDirectory(m.id, target).then(() => null, (e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(Error);
  expect(describeTree(target)).toEqual(before); // left as it was
  expect(readdirSync(dirname(target))).toEqual(['target']); // no staging left behind
  return err as Error;
}

describe('restore guard: hostile layers in the store are refused and the target is left as it was', () => {
  for (const [name, entries] of Object.entries(hostile)) {
    it(name, async () => {
      const store = await openStore(tempDir());
      const err = await expectRefusedRestore(store, buildTar(entries));
      expect(err).toBeInstanceOf(UnsafeArchiveError);
      await expect(store.exportTar((await store.list())[0]!.id)).rejects.toBeInstanceOf(UnsafeArchiveError);
    });
  }

  it('stops a decompression bomb early (a small gzip that inflates far past its headers)', async () => {
    const store = await openStore(tempDir());
    const tar = buildTar(ok, Buffer.alloc(64 * 1024 * 1024));
    const gz = gzipSync(tar, { level: 1 });
    expect(gz.length).toBeLessThan(512 * 1024);
    const started = Date.now();
    const err = await expectRefusedRestore(store, tar, gz);
    expect(err).toBeInstanceOf(UnsafeArchiveError);
    expect(err.message).toMatch(/decompression bomb/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('accepts an honest archive handed over in one large chunk (node-tar reads files 16 MiB at a time)', async () => {
    // The bomb check once counted bytes as chunks arrived, before the reader had seen the header declaring them:
    // a 20 MiB chunk holding a header and its file was "20 MiB inflated for 0 declared" (LocalSandbox.putArchive
    // refused a plain 50 MB tree under load). Counted as the reader consumes, it never runs ahead of the headers.
    const big = Buffer.alloc(20 * 1024 * 1024, 7);
    const tar = buildTar([...ok, { path: 'big.bin', body: big }]);
    const dest = tempDir();
    await expect(extractTar(Readable.from([tar]), dest, { limits: DEFAULT_RESTORE_LIMITS })).resolves.toMatchObject({ bytes: expect.any(Number) });
    expect(statSync(join(dest, 'big.bin')).size).toBe(big.length);
    // The same archive as a layer, read through the store's restore (counted by the same reader).
    const store = await openStore(tempDir());
    const m = await plantSnapshot(store, tar);
    await expect(store.restoreToDirectory(m.id, join(tempDir(), 't'))).resolves.toMatchObject({ files: ok.length + 1 });
  });

  it('enforces file-count and byte caps', async () => {
    const store = await openStore(tempDir());
    const many = buildTar(Array.from({ length: 20 }, (_, i) => ({ path: `f${i}`, body: 'x'.repeat(100) })));
    const m = await plantSnapshot(store, many);
    await expect(store.restoreToDirectory(m.id, join(tempDir(), 't'), { limits: { maxFiles: 10 } })).rejects.toThrow(/more than 10 entries/);
    await expect(store.restoreToDirectory(m.id, join(tempDir(), 't'), { limits: { maxTotalBytes: 1000 } })).rejects.toThrow(/more than 1000 bytes/);
    await expect(store.restoreToDirectory(m.id, join(tempDir(), 't'))).resolves.toEqual({ files: 20, bytes: 2000 });
  });

  it('strips setuid and setgid bits but keeps the rest of the mode', async () => {
    const store = await openStore(tempDir());
    const m = await plantSnapshot(store, buildTar([{ path: 'suid', mode: 0o4755, body: '#!/bin/sh\n' }, { path: 'sgid/', type: 'Directory', mode: 0o2775 }]));
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(statSync(join(out, 'suid')).mode & 0o7777).toBe(0o755);
    expect(statSync(join(out, 'sgid')).mode & 0o7777).toBe(0o775);
  });

  it('restores links as data wherever they point (absolute, up and out, chains), writing nothing through them', async () => {
    const store = await openStore(tempDir());
    const links: RawEntry[] = [
      ...ok,
      { path: 'etc', type: 'SymbolicLink', linkpath: '/etc' },
      { path: 'sub/out', type: 'SymbolicLink', linkpath: '../../..' },
      { path: 'sub/up', type: 'SymbolicLink', linkpath: '..' },
      { path: 'esc', type: 'SymbolicLink', linkpath: 'sub/up/..' },
      { path: 'ws', type: 'SymbolicLink', linkpath: '/workspace/sub/ok.txt' },
    ];
    const m = await plantSnapshot(store, buildTar(links));
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toMatchObject({ etc: 'link -> /etc', 'sub/out': 'link -> ../../..', esc: 'link -> sub/up/..', ws: 'link -> /workspace/sub/ok.txt' });
    expect(readdirSync(dirname(out))).toEqual(['out']);
  });

  it('accepts links that stay inside, including a chain', async () => {
    const store = await openStore(tempDir());
    const m = await plantSnapshot(
      store,
      buildTar([...ok, { path: 'sub/up', type: 'SymbolicLink', linkpath: '..' }, { path: 'in', type: 'SymbolicLink', linkpath: 'sub/up/sub/ok.txt' }, { path: 'hard', type: 'Link', linkpath: 'sub/ok.txt' }]),
    );
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toMatchObject({ in: 'link -> sub/up/sub/ok.txt', 'sub/up': 'link -> ..' });
    expect(statSync(join(out, 'hard')).ino).toBe(statSync(join(out, 'sub/ok.txt')).ino);
  });
});

describe('restore guard: a hostile tar stream as a snapshot source is refused', () => {
  for (const name of ['dot-dot segment', 'absolute path', 'file written through a symlink', 'hardlink out by dot-dot']) {
    it(name, async () => {
      const store = await openStore(tempDir());
      const err = await store.create({ tar: Readable.from([buildTar(hostile[name]!)]) }, { lineage: 'x', kind: 'workspace' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeArchiveError);
      expect(await store.list()).toEqual([]);
      expect(readdirSync(store.tmpDir)).toEqual([]);
    });
  }

  it('leaves a 10,000-deep path of a source stream out and lists it once, like packing a directory (the run keeps its snapshot)', async () => {
    const store = await openStore(tempDir());
    const m = await store.create({ tar: Readable.from([buildTar([...ok, ...hostile['10,000-deep directory']!])]) }, { lineage: 'x', kind: 'workspace' });
    expect(m.skipped).toEqual([{ path: expect.stringMatching(/^(d\/)+/), reason: 'deeper or longer than a restore accepts (256 levels, 4096 bytes)' }]);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(readFileSync(join(out, 'sub/ok.txt'), 'utf8')).toBeTruthy();
  });

  it('leaves FIFOs and devices of a source stream out with a warning, like packing a directory, and keeps every link as it is', async () => {
    const store = await openStore(tempDir());
    const tar = buildTar([
      ...ok,
      { path: 'pipe', type: 'FIFO' },
      { path: 'sub/null', type: 'CharacterDevice' },
      { path: 'python', type: 'SymbolicLink', linkpath: '/usr/bin/python3' },
      { path: 'sub/up', type: 'SymbolicLink', linkpath: '..' },
      { path: 'chain', type: 'SymbolicLink', linkpath: 'sub/up/..' },
    ]);
    const m = await store.create({ tar: Readable.from([tar]) }, { lineage: 'x', kind: 'workspace' });
    expect(m.skipped).toEqual([
      { path: 'pipe', reason: 'FIFO cannot be snapshotted' },
      { path: 'sub/null', reason: 'device file cannot be snapshotted' },
    ]);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toEqual({
      sub: 'dir 755',
      'sub/ok.txt': expect.stringMatching(/^file 644 /),
      'sub/up': 'link -> ..',
      python: 'link -> /usr/bin/python3',
      chain: 'link -> sub/up/..',
    });
  });
});
