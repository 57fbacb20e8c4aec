import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type DirectoryStore, type Manifest } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { buildMessyTree } from '../support/messy-tree.js';
import { describeTreeBytes, tempDir } from './helpers.js';

async function snap(store: DirectoryStore, src: string, kind: 'workspace' | 'memory' = 'workspace', scope?: string[]): Promise<Manifest> {
  const head = await store.getHead('l');
  const m = await store.create({ dir: src }, { lineage: 'l', kind, ...(scope ? { scope } : {}) });
  await store.advanceHead('l', head, m.id);
  return m;
}

async function expectRestores(store: DirectoryStore, m: Manifest, src: string): Promise<void> {
  const out = join(tempDir(), 'out');
  await store.restoreToDirectory(m.id, out);
  expect(describeTreeBytes(out)).toEqual(describeTreeBytes(src));
}

describe('a chain over maxChainLength folds its deltas onto the full base', () => {
  it('keeps the base and one delta, restoring byte for byte through every kind of change on a messy tree', async () => {
    const src = tempDir();
    const messy = buildMessyTree(src, { entries: 300, sparseBytes: 1024 * 1024 });
    for (const cache of messy.caches) rmSync(join(src, cache), { recursive: true }); // ignored by default: not compared
    writeFileSync(join(src, 'big.bin'), Buffer.alloc(256 * 1024, 3)); // base much larger than the changes
    const store = await openStore(tempDir(), { maxChainLength: 3 });
    const first = await snap(store, src);
    const changes: Array<() => void> = [
      () => writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- changed\n'),
      () => rmSync(join(src, 'docs'), { recursive: true }), // a directory with children goes
      () => { mkdirSync(join(src, 'docs')); writeFileSync(join(src, 'docs/new.md'), 'new'); }, // and comes back with other content
      () => { rmSync(join(src, 'src/app'), { recursive: true }); writeFileSync(join(src, 'src/app'), 'now a file'); }, // dir → file
      () => chmodSync(join(src, 'generated'), 0o700), // a directory's mode only
      () => { rmSync(join(src, 'src/app')); mkdirSync(join(src, 'src/app')); writeFileSync(join(src, 'src/app/x.py'), 'x'); }, // file → dir
      () => { rmSync(join(src, 'dangling')); symlinkSync('big.bin', join(src, 'dangling')); }, // a link retargeted
      () => rmSync(join(src, 'generated/f00007.txt')),
      () => writeFileSync(Buffer.concat([Buffer.from(`${src}/`), Buffer.from([0x6e, 0xfe])]), 'new odd name'),
    ];
    let m = first;
    for (const change of changes) {
      change();
      m = await snap(store, src, m === first ? 'workspace' : 'memory');
      expect(m.layers.length).toBeLessThanOrEqual(3);
      expect(m.layers[0]!.digest).toBe(first.layers[0]!.digest); // never squashed: the base stays
      await expectRestores(store, m, src);
    }
    expect(m.layers.every((l, i) => l.delta === (i > 0))).toBe(true);
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
  });

  it('many memory-only snapshots cost what changed: no copy of the tree is written again', async () => {
    const src = tempDir();
    for (let i = 0; i < 200; i++) {
      mkdirSync(join(src, `pkg${i % 10}`), { recursive: true });
      writeFileSync(join(src, `pkg${i % 10}`, `f${i}.js`), randomBytes(8000).toString('base64'));
    }
    mkdirSync(join(src, 'memories'));
    const store = await openStore(tempDir(), { maxChainLength: 4 });
    const first = await snap(store, src);
    const storeBytes = async (): Promise<number> => (await store.blobs.all()).reduce((n, b) => n + b.bytes, 0);
    const before = await storeBytes();
    let m = first;
    for (let run = 0; run < 20; run++) {
      writeFileSync(join(src, 'memories/MEMORY.md'), `# Memory\n${'- a lesson\n'.repeat(run + 1)}`);
      m = await snap(store, src, 'memory', ['memories']);
    }
    expect(m.layers[0]!.digest).toBe(first.layers[0]!.digest);
    const growth = (await storeBytes()) - before;
    expect(growth).toBeLessThan(first.layers[0]!.compressedBytes / 20); // a squash would have added the whole layer each time
    await expectRestores(store, m, src);
    expect(statSync(store.manifests.pathOf(m.id)).size).toBeLessThan(4000);
  });

  it('falls back to a full squash when the folded delta would be large next to the base', async () => {
    const src = tempDir();
    writeFileSync(join(src, 'small'), 's');
    const store = await openStore(tempDir(), { maxChainLength: 2 });
    await snap(store, src);
    writeFileSync(join(src, 'a'), Buffer.alloc(64 * 1024, 1));
    await snap(store, src);
    writeFileSync(join(src, 'b'), Buffer.alloc(64 * 1024, 2));
    const m = await snap(store, src);
    expect(m.layers).toHaveLength(1);
    await expectRestores(store, m, src);
  });
});
