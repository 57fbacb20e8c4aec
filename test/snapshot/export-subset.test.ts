/**
 * A subset export (`exportTar(id, { paths })`, what a session sends for `memories/` or for the paths a cached
 * volume lacks) reads only the layers that carry what it writes (issue 15). Real DirStore, real tar layers, a
 * messy tree with a chain of deltas (deletions, a directory replaced by a file, symlinks, hard links).
 */
import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { Parser, type ReadEntry } from 'tar';
import { describe, expect, it } from 'vitest';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { buildMessyTree } from '../support/messy-tree.js';
import { tempDir } from './helpers.js';

async function snap(store: DirectoryStore, src: string): Promise<string> {
  const head = await store.getHead('l');
  const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
  await store.advanceHead('l', head, m.id);
  return m.id;
}

interface Entry {
  path: string;
  type: string;
  mode: number;
  linkpath: string;
  content: string;
}

/** Every entry of a tar, in order, with its content. */
async function entries(tar: Buffer): Promise<Entry[]> {
  const out: Entry[] = [];
  const parser = new Parser({
    onReadEntry: (e: ReadEntry) => {
      const chunks: Buffer[] = [];
      e.on('data', (c: Buffer) => chunks.push(c));
      e.on('end', () => out.push({ path: e.path.replace(/\/$/, ''), type: e.type, mode: e.mode ?? 0, linkpath: e.linkpath ?? '', content: Buffer.concat(chunks).toString('latin1') }));
    },
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(tar);
  });
  return out;
}

const under = (paths: string[]) => (p: string) => paths.some((q) => p === q || p.startsWith(`${q}/`) || q.startsWith(`${p}/`));

/** A base layer holding a messy tree of a few thousand entries, then deltas that touch memories/ and a little code. */
async function chain(): Promise<{ store: DirectoryStore; id: string; src: string }> {
  const src = tempDir();
  buildMessyTree(src, { entries: 3000, sparseBytes: 1024 * 1024 });
  mkdirSync(join(src, 'pkg/deep'), { recursive: true });
  writeFileSync(join(src, 'pkg/deep/a.js'), 'a');
  writeFileSync(join(src, 'vendor.bin'), 'vendored bytes');
  const store = await openStore(tempDir());
  await snap(store, src);
  writeFileSync(join(src, 'memories/run-1.md'), '- learned one\n');
  rmSync(join(src, 'pkg/deep'), { recursive: true }); // a directory becomes a file
  writeFileSync(join(src, 'pkg/deep'), 'now a file');
  await snap(store, src);
  mkdirSync(join(src, 'memories/rollouts/2026 12 04 ünï'), { recursive: true });
  writeFileSync(join(src, 'memories/rollouts/2026 12 04 ünï/summary.md'), '# run 2\n');
  writeFileSync(join(src, 'memories/run-1.md'), '- learned one, then two\n');
  symlinkSync('run-1.md', join(src, 'memories/latest.md'));
  // Hard links whose target is outside memories/, packed in the same layer as the target (a link to a file of a
  // lower layer is packed as a file of its own).
  mkdirSync(join(src, 'assets'));
  writeFileSync(join(src, 'assets/vendor.bin'), 'vendored bytes');
  linkSync(join(src, 'assets/vendor.bin'), join(src, 'memories/vendor-copy.bin'));
  linkSync(join(src, 'assets/vendor.bin'), join(src, 'memories/vendor-copy-2.bin'));
  const id = await snap(store, src);
  return { store, id, src };
}

/** Flips bytes in the middle of the base layer's blob, as a damaged disk would. */
async function damageBase(store: DirectoryStore, id: string): Promise<void> {
  const base = (await store.get(id)).layers[0]!;
  const file = join(store.root, 'blobs', 'sha256', base.digest.replace(/^sha256:/, ''));
  const bytes = readFileSync(file);
  bytes.fill(0x41, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 64);
  writeFileSync(file, bytes);
}

describe('a subset export reads only the layers it needs', () => {
  it('writes what the whole export writes under those paths, in the same order, with the same bytes', async () => {
    const { store, id } = await chain();
    const whole = await entries(await buffer((await store.exportTar(id)) as Readable));
    for (const paths of [['memories'], ['pkg'], ['memories/run-1.md', 'src/app'], ['memories/rollouts']]) {
      const subset = await entries(await buffer((await store.exportTar(id, { paths })) as Readable));
      const keep = under(paths);
      // Hard links whose target is left out arrive as files (checked below); everything else as in the whole export.
      const expected = whole.filter((e) => keep(e.path) && !(e.type === 'Link' && !keep(e.linkpath)));
      expect(subset.filter((e) => !(e.path.startsWith('memories/vendor-copy')))).toEqual(expected.filter((e) => !e.path.startsWith('memories/vendor-copy')));
      expect(subset.length).toBeGreaterThan(0);
    }
  });

  it('a hard link whose target is left out arrives with its bytes; a second link to it links to the first', async () => {
    const { store, id } = await chain();
    const subset = await entries(await buffer((await store.exportTar(id, { paths: ['memories'] })) as Readable));
    const links = subset.filter((e) => e.path.startsWith('memories/vendor-copy'));
    expect(links).toHaveLength(2);
    const [first, second] = links as [Entry, Entry];
    expect(first).toMatchObject({ type: 'File', content: 'vendored bytes' });
    expect(second).toMatchObject({ type: 'Link', linkpath: first.path });
    expect(subset.some((e) => e.path.startsWith('assets'))).toBe(false);
    // In the layer they are links to assets/vendor.bin: the whole export writes them so.
    const whole = await entries(await buffer((await store.exportTar(id)) as Readable));
    expect(whole.filter((e) => e.type === 'Link' && e.path.startsWith('memories/vendor-copy'))).toHaveLength(2);
  });

  it('does not read the base layer when nothing under the paths lives in it (a damaged base still fails what needs it)', async () => {
    const { store, id } = await chain();
    await damageBase(store, id);
    const fromUpper = await entries(await buffer((await store.exportTar(id, { paths: ['memories/rollouts', 'memories/run-1.md'] })) as Readable));
    expect(fromUpper.find((e) => e.path === 'memories/run-1.md')?.content).toBe('- learned one, then two\n');
    expect(fromUpper.find((e) => e.path.endsWith('summary.md'))?.content).toBe('# run 2\n');
    await expect(store.exportTar(id)).rejects.toMatchObject({ code: 'SNAPSHOT_CORRUPT' });
    await expect(store.exportTar(id, { paths: ['memories'] })).rejects.toMatchObject({ code: 'SNAPSHOT_CORRUPT' });
  });
});
