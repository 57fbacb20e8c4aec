import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { describeTree, tempDir } from './helpers.js';

/** Snapshots `src` into `lineage` (delta on the head), advances the head, and checks a restore equals `src`. */
async function step(store: DirectoryStore, src: string, lineage = 'l'): Promise<string> {
  const head = await store.getHead(lineage);
  const m = await store.create({ dir: src }, { lineage, kind: 'workspace' });
  await store.advanceHead(lineage, head, m.id);
  // verify also checks the tree index the next delta will start from against the layers
  expect(await verifySnapshots(store, m.id)).toEqual([{ id: m.id, ok: true }]);
  const out = join(tempDir(), 'out');
  await store.restoreToDirectory(m.id, out);
  expect(describeTree(out)).toEqual(describeTree(src));
  return m.id;
}

describe('delta chains', () => {
  it('handles deletions, renames and type changes (file → dir → file, dir → symlink)', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    mkdirSync(join(src, 'a/b'), { recursive: true });
    writeFileSync(join(src, 'a/b/c.txt'), 'c');
    writeFileSync(join(src, 'x'), 'x is a file');
    writeFileSync(join(src, 'gone.txt'), 'bye');
    mkdirSync(join(src, 'tree/deep'), { recursive: true });
    writeFileSync(join(src, 'tree/deep/f'), 'f');
    const states: Array<[string, Record<string, string>]> = [];
    states.push([await step(store, src), describeTree(src)]);

    rmSync(join(src, 'gone.txt'));
    renameSync(join(src, 'a/b/c.txt'), join(src, 'a/c-renamed.txt'));
    rmSync(join(src, 'x'));
    mkdirSync(join(src, 'x'));
    writeFileSync(join(src, 'x/inside'), 'x is a dir now');
    states.push([await step(store, src), describeTree(src)]);

    rmSync(join(src, 'x'), { recursive: true });
    writeFileSync(join(src, 'x'), 'x is a file again');
    rmSync(join(src, 'tree'), { recursive: true });
    symlinkSync('a', join(src, 'tree'));
    chmodSync(join(src, 'a'), 0o700);
    states.push([await step(store, src), describeTree(src)]);

    rmSync(join(src, 'tree'));
    mkdirSync(join(src, 'tree'));
    states.push([await step(store, src), describeTree(src)]);

    const head = await store.get((await store.getHead('l'))!);
    expect(head.layers.map((l) => l.delta)).toEqual([false, true, true, true]);
    // every earlier state still restores exactly
    for (const [id, tree] of states) {
      const out = join(tempDir(), 'again');
      await store.restoreToDirectory(id, out);
      expect(describeTree(out)).toEqual(tree);
    }
  });

  it('restores a directory deleted in one delta and created again in a later one', async () => {
    const src = tempDir();
    const store = await openStore(join(tempDir(), 'store'));
    mkdirSync(join(src, 'a'));
    writeFileSync(join(src, 'a/x'), 'x');
    let parent = (await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' })).id;
    rmSync(join(src, 'a'), { recursive: true });
    parent = (await store.create({ dir: src }, { lineage: 'l', kind: 'workspace', parent })).id;
    mkdirSync(join(src, 'a'));
    writeFileSync(join(src, 'a/y'), 'y');
    const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace', parent });
    expect(m.layers).toHaveLength(3);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  });

  it('stores an unchanged tree as a tiny delta and identical layers once', async () => {
    const src = tempDir();
    writeFileSync(join(src, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
    // Past the pack's 2 s racy window (ctime, which a test cannot set back): a file that young gets no stat
    // fingerprint, and on a loaded machine the three snapshots fell on both sides of the window, so their
    // indexes differed although the tree did not.
    await new Promise((done) => setTimeout(done, 2_100));
    const store = await openStore(tempDir());
    await step(store, src);
    await step(store, src);
    const third = await store.get(await step(store, src));
    expect(third.layers[1]!.fileCount).toBe(0);
    expect(third.layers[1]!.compressedBytes).toBeLessThan(100);
    expect(third.layers[1]!.digest).toBe(third.layers[2]!.digest);
    // two layer blobs, plus one tree index: the tree did not change, so every snapshot's index is the same blob
    expect(third.treeIndex).toBeDefined();
    expect((await store.blobs.all()).map((b) => b.digest).sort()).toEqual([...new Set([...third.layers.map((l) => l.digest), third.treeIndex!.digest])].sort());
    expect((await store.blobs.all()).length).toBe(3);
  });

  it('squashes automatically past maxChainLength and on command', async () => {
    const src = tempDir();
    const store = await openStore(tempDir(), { maxChainLength: 3 });
    for (let i = 0; i < 4; i++) {
      writeFileSync(join(src, `f${i}`), `v${i}`);
      if (i === 2) rmSync(join(src, 'f0'));
      await step(store, src);
    }
    const head = await store.get((await store.getHead('l'))!);
    expect(head.layers).toHaveLength(1);
    expect(head.layers[0]!.delta).toBe(false);

    const { squashLineage } = await import('../../src/snapshot/maintenance.js');
    writeFileSync(join(src, 'f9'), 'more');
    await step(store, src);
    const r = await squashLineage(store, 'l');
    expect(r.squashed).toBe(true);
    expect(r.manifest.layers).toHaveLength(1);
    expect(await store.getHead('l')).toBe(r.manifest.id);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(r.manifest.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  });

  it('diffs two snapshots with a text diff of the memory layout', async () => {
    const { diffSnapshots } = await import('../../src/snapshot/diff.js');
    const src = tempDir();
    const store = await openStore(tempDir());
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- one\n- two\n');
    writeFileSync(join(src, 'code.ts'), 'a');
    writeFileSync(join(src, 'old.ts'), 'a');
    const a = await step(store, src);
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- one\n- three\n');
    writeFileSync(join(src, 'code.ts'), 'b');
    rmSync(join(src, 'old.ts'));
    writeFileSync(join(src, 'new.ts'), 'n');
    const b = await step(store, src);
    const d = await diffSnapshots(store, a, b);
    expect(d).toMatchObject({ added: ['new.ts'], removed: ['old.ts'], changed: ['code.ts', 'memories/MEMORY.md'] });
    expect(d.textDiffs['memories/MEMORY.md']).toBe(
      '--- a/memories/MEMORY.md\n+++ b/memories/MEMORY.md\n@@ -1,3 +1,3 @@\n # Memory\n - one\n-- two\n+- three\n',
    );
    expect(d.textDiffs['code.ts']).toBeUndefined();
  });
});

describe('pack details', () => {
  it('keeps long and unicode names, large files, and skips FIFOs, sockets and ignored paths with a warning', async () => {
    const src = tempDir();
    const long = `${'long-name-'.repeat(20)}.txt`;
    mkdirSync(join(src, 'ünï/日本語'), { recursive: true });
    writeFileSync(join(src, 'ünï/日本語/ファイル.md'), 'unicode');
    writeFileSync(join(src, long), 'long');
    mkdirSync(join(src, `${'d'.repeat(120)}/${'e'.repeat(120)}`), { recursive: true });
    writeFileSync(join(src, `${'d'.repeat(120)}/${'e'.repeat(120)}/${'f'.repeat(120)}`), 'deep long');
    const big = Buffer.alloc(12 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    writeFileSync(join(src, 'large.bin'), big);
    execFileSync('mkfifo', [join(src, 'fifo')]);
    mkdirSync(join(src, 'node_modules/.cache'), { recursive: true });
    writeFileSync(join(src, 'node_modules/.cache/junk'), 'junk');
    writeFileSync(join(src, 'node_modules/kept.js'), 'kept');
    writeFileSync(join(src, '.wh.reserved'), 'would read as a whiteout');
    symlinkSync('/etc/passwd', join(src, 'outside-link'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(src, 'sock'), resolve));
    const store = await openStore(tempDir());
    const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' }).finally(() => server.close());
    expect(m.skipped?.map((s) => s.path).sort()).toEqual(['.wh.reserved', 'fifo', 'sock']);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    const want = describeTree(src);
    for (const k of ['fifo', 'sock', '.wh.reserved', 'node_modules/.cache', 'node_modules/.cache/junk']) delete want[k];
    expect(describeTree(out)).toEqual(want);
  });

  it('exports with the requested owner in every header, directories first', async () => {
    const { Parser } = await import('tar');
    const src = tempDir();
    mkdirSync(join(src, 'a/b'), { recursive: true });
    writeFileSync(join(src, 'a/b/f'), 'f');
    writeFileSync(join(src, 'top'), 't');
    const store = await openStore(tempDir());
    const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
    const tar = await store.exportTar(m.id, { owner: { uid: 1000, gid: 1001 } });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const p = new Parser();
      p.on('entry', (e) => {
        seen.push(`${e.type} ${e.path} ${e.uid}:${e.gid}`);
        e.resume();
      });
      p.on('end', () => resolve());
      tar.on('error', reject);
      tar.pipe(p as never);
    });
    expect(seen).toEqual(['Directory a/ 1000:1001', 'Directory a/b/ 1000:1001', 'File a/b/f 1000:1001', 'File top 1000:1001']);
  });
});
