import { chmodSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/config/progress.js';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { describeTree, tempDir } from './helpers.js';

async function snap(store: DirectoryStore, src: string, events: ProgressEvent[] = []): Promise<string> {
  const head = await store.getHead('l');
  const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace', onProgress: (e) => events.push(e) });
  await store.advanceHead('l', head, m.id);
  return m.id;
}

async function restored(store: DirectoryStore, id: string): Promise<Record<string, string>> {
  const out = join(tempDir(), 'out');
  await store.restoreToDirectory(id, out);
  return describeTree(out);
}

describe('tree index', () => {
  it('a delta on a parent with an index does not read the parent’s layers', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'memories/MEMORY.md'), 'one');
    writeFileSync(join(src, 'big'), 'x'.repeat(5000));
    const first = await store.get(await snap(store, src));
    expect(first.treeIndex?.entries).toBe(3);
    // Hide the parent's layer: the delta must learn the tree from the index alone.
    const layer = store.blobs.pathOf(first.layers[0]!.digest);
    const saved = readFileSync(layer);
    rmSync(layer);
    writeFileSync(join(src, 'memories/MEMORY.md'), 'two');
    rmSync(join(src, 'big'));
    const second = await store.get(await snap(store, src));
    writeFileSync(layer, saved);
    expect(second.layers[1]!.fileCount).toBe(2); // the changed file and one whiteout
    expect(await restored(store, second.id)).toEqual(describeTree(src));
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
  });

  it('snapshots without an index (older stores) and with a damaged one still get a correct delta', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    writeFileSync(join(src, 'a'), 'a');
    writeFileSync(join(src, 'b'), 'b');
    const first = await store.get(await snap(store, src));
    // An old manifest: no treeIndex field.
    const { treeIndex, ...old } = first;
    writeFileSync(store.manifests.pathOf(first.id), JSON.stringify(old));
    writeFileSync(join(src, 'b'), 'b2');
    const second = await store.get(await snap(store, src));
    expect(second.layers[1]!.fileCount).toBe(1);
    expect(await restored(store, second.id)).toEqual(describeTree(src));
    // Damage the second's index: the third falls back to scanning, and verify names the damage.
    const blob = store.blobs.pathOf(second.treeIndex!.digest);
    chmodSync(blob, 0o644);
    writeFileSync(blob, 'garbage');
    rmSync(join(src, 'a'));
    const third = await store.get(await snap(store, src));
    expect(third.layers[2]!.fileCount).toBe(1);
    expect(await restored(store, third.id)).toEqual(describeTree(src));
    const results = await verifySnapshots(store);
    expect(results.find((r) => r.id === second.id)).toEqual({ id: second.id, ok: false, error: expect.stringContaining('tree index') });
    expect(results.filter((r) => r.id !== second.id).every((r) => r.ok)).toBe(true);
    expect(treeIndex).toBeDefined();
  });

  it('skips re-reading an unchanged file by its stat, but catches a same-size rewrite with the old mtime', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    const sparse = join(src, 'sparse.img');
    writeFileSync(sparse, '');
    truncateSync(sparse, 16 * 1024 * 1024); // a sparse 16 MiB file
    writeFileSync(join(src, 'note'), 'aaaa');
    await new Promise((r) => setTimeout(r, 2100)); // older than the racy window, so fingerprints are recorded
    await snap(store, src);
    const events: ProgressEvent[] = [];
    const second = await store.get(await snap(store, src, events));
    expect(second.layers[1]!.fileCount).toBe(0);
    expect(events.map((e) => e.message)).toContain('2 unchanged file(s) not re-read');

    // Same size, mtime put back: only ctime tells, and it must be enough.
    const { mtime } = statSync(join(src, 'note'));
    writeFileSync(join(src, 'note'), 'bbbb');
    utimesSync(join(src, 'note'), mtime, mtime);
    const third = await store.get(await snap(store, src));
    expect(third.layers[2]!.fileCount).toBe(1);
    expect(await restored(store, third.id)).toEqual(describeTree(src));
  });

  it('restores runs of zeros in a large file as holes, with the same bytes', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    const img = Buffer.alloc(12 * 1024 * 1024);
    img.write('header', 0);
    img.write('trailer', img.length - 7);
    writeFileSync(join(src, 'disk.img'), img);
    const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    const st = statSync(join(out, 'disk.img'));
    expect(st.size).toBe(img.length);
    expect(st.blocks * 512).toBeLessThan(2 * 1024 * 1024); // dense would be 12 MiB
    expect(readFileSync(join(out, 'disk.img')).equals(img)).toBe(true);
  });

  it('a tar source (a sandbox) is hashed while extracted, so unchanged files are not read back; changes are caught', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    mkdirSync(join(src, 'd'));
    writeFileSync(join(src, 'd/same'), 'same content');
    writeFileSync(join(src, 'edit'), 'v1 v1');
    const fromTar = async (events: ProgressEvent[] = []): Promise<string> => {
      // Piped at once: Node discards a child's stdout that nobody has started reading when the child exits.
      const tar = spawn('tar', ['-cf', '-', '-C', src, '.'], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout.pipe(new PassThrough());
      const head = await store.getHead('t');
      const m = await store.create({ tar }, { lineage: 't', kind: 'workspace', onProgress: (e) => events.push(e) });
      await store.advanceHead('t', head, m.id);
      return m.id;
    };
    await fromTar();
    const events: ProgressEvent[] = [];
    const second = await store.get(await fromTar(events));
    expect(second.layers[1]!.fileCount).toBe(0);
    expect(events.map((e) => e.message)).toContain('2 unchanged file(s) not re-read');
    writeFileSync(join(src, 'edit'), 'v2 v2'); // same size
    const third = await store.get(await fromTar());
    expect(third.layers[2]!.fileCount).toBe(1);
    expect(await restored(store, third.id)).toEqual(describeTree(src));
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
  });
});
