import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import { describe, expect, it } from 'vitest';
import { HeadConflictError, SnapshotNotFoundError, type SnapshotStore } from '../../src/snapshot/index.js';
import { describeTree, tempDir } from './helpers.js';

async function listTar(stream: Readable): Promise<string[]> {
  const names: string[] = [];
  const parser = new Parser();
  parser.on('entry', (e: ReadEntry) => {
    names.push(`${e.type} ${e.path}`);
    e.resume();
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('end', () => resolve());
    stream.on('error', reject);
    stream.pipe(parser as never);
  });
  return names;
}

function workspace(): string {
  const src = tempDir();
  mkdirSync(join(src, 'src/lib'), { recursive: true });
  mkdirSync(join(src, 'memories'), { recursive: true });
  mkdirSync(join(src, 'sessions'), { recursive: true });
  mkdirSync(join(src, 'empty'));
  writeFileSync(join(src, 'src/lib/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(src, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(src, 'run.sh'), 0o755);
  chmodSync(join(src, 'src/lib'), 0o750);
  writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n');
  writeFileSync(join(src, 'sessions/r1.jsonl'), '{"type":"session_meta"}\n');
  symlinkSync('src/lib/a.ts', join(src, 'a-link'));
  return src;
}

/**
 * The behaviour every `SnapshotStore` must show, written against the interface only (STYLE.md: one contract
 * suite per interface). `open` makes a new, empty store; a later object-store backend runs the same suite.
 */
export function snapshotStoreContract(name: string, open: () => Promise<SnapshotStore>): void {
  describe(`SnapshotStore contract: ${name}`, () => {
    it('round-trips a tree exactly, including modes, empty dirs and symlinks', async () => {
      const src = workspace();
      const store = await open();
      const m = await store.create({ dir: src }, { lineage: 'demo', kind: 'workspace' });
      expect(m.parent).toBeNull();
      expect(m.layers).toHaveLength(1);
      expect(m.layers[0]!.delta).toBe(false);
      const out = join(tempDir(), 'restored');
      await store.restoreToDirectory(m.id, out);
      expect(describeTree(out)).toEqual(describeTree(src));
      expect((await store.list()).map((x) => x.id)).toEqual([m.id]);
      expect(await store.get(m.id)).toEqual(m);
    });

    it('stores a second snapshot as a delta with whiteouts and restores each state', async () => {
      const src = workspace();
      const store = await open();
      const m1 = await store.create({ dir: src }, { lineage: 'demo', kind: 'workspace' });
      const before = describeTree(src);
      await store.advanceHead('demo', null, m1.id);
      writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- lesson\n');
      rmSync(join(src, 'src/lib/a.ts'));
      const m2 = await store.create({ dir: src }, { lineage: 'demo', kind: 'workspace' });
      expect(m2.parent).toBe(m1.id);
      expect(m2.layers).toHaveLength(2);
      expect(m2.layers[1]!.delta).toBe(true);
      expect(m2.layers[1]!.fileCount).toBe(2); // MEMORY.md + the whiteout of a.ts
      const out1 = join(tempDir(), 'one');
      const out2 = join(tempDir(), 'two');
      await store.restoreToDirectory(m1.id, out1);
      await store.restoreToDirectory(m2.id, out2);
      expect(describeTree(out1)).toEqual(before);
      expect(describeTree(out2)).toEqual(describeTree(src));
    });

    it('advances heads only by compare-and-swap', async () => {
      const store = await open();
      const src = workspace();
      const m1 = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
      const m2 = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace', parent: m1.id });
      expect(await store.getHead('ci/main')).toBeNull();
      await store.advanceHead('ci/main', null, m1.id);
      const err = await store.advanceHead('ci/main', null, m2.id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HeadConflictError);
      expect((err as HeadConflictError).current).toBe(m1.id);
      await store.advanceHead('ci/main', m1.id, m2.id);
      expect(await store.listHeads()).toEqual({ 'ci/main': m2.id });
      await expect(store.advanceHead('ci/main', m2.id, '20990101T000000000Z-00000000')).rejects.toBeInstanceOf(SnapshotNotFoundError);
    });

    it('keeps branches beside the heads, moved and deleted only by compare-and-swap', async () => {
      const store = await open();
      const src = workspace();
      const m1 = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
      const m2 = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace', parent: m1.id });
      const other = await store.create({ dir: src }, { lineage: 'other', kind: 'workspace' });
      const name = 'ci/main@20261201T120000000Z-4f9c2a7e1b';
      expect(await store.getBranch(name)).toBeNull();
      await store.moveBranch(name, null, m1.id);
      await store.moveBranch('other@kept', null, other.id);
      expect(await store.getBranch(name)).toBe(m1.id);
      const err = await store.moveBranch(name, null, m2.id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HeadConflictError);
      expect((err as HeadConflictError).current).toBe(m1.id);
      await store.moveBranch(name, m1.id, m2.id);
      expect(await store.listBranches()).toEqual({ [name]: m2.id, 'other@kept': other.id });
      expect(await store.listBranches('ci/main')).toEqual({ [name]: m2.id });
      expect(await store.listHeads()).toEqual({}); // branches are not heads
      await expect(store.moveBranch(name, m2.id, '20990101T000000000Z-00000000')).rejects.toBeInstanceOf(SnapshotNotFoundError);
      await expect(store.moveBranch(name, m1.id, null)).rejects.toBeInstanceOf(HeadConflictError);
      await store.moveBranch(name, m2.id, null);
      expect(await store.getBranch(name)).toBeNull();
      for (const bad of ['ci/main', '@x', 'ci/main@', 'ci/main@../x', 'ci/main@a/b']) {
        await expect(store.moveBranch(bad, null, m1.id)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      }
    });

    it('lets exactly one of many concurrent branch writers win', async () => {
      const store = await open();
      const src = workspace();
      const ms = await Promise.all(Array.from({ length: 6 }, () => store.create({ dir: src }, { lineage: 'race', kind: 'workspace', parent: null })));
      const results = await Promise.allSettled(ms.map((m) => store.moveBranch('race@one', null, m.id)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const winner = ms[results.findIndex((r) => r.status === 'fulfilled')]!.id;
      expect(await store.getBranch('race@one')).toBe(winner);
    });

    it('makes a memory snapshot from a memory-only dir that inherits the rest of the workspace', async () => {
      const src = workspace();
      const store = await open();
      const ws = await store.create({ dir: src }, { lineage: 'demo', kind: 'workspace' });
      const mem = tempDir();
      mkdirSync(join(mem, 'memories'));
      writeFileSync(join(mem, 'memories/MEMORY.md'), '# Memory\n- new lesson\n');
      writeFileSync(join(mem, 'memories/memory_summary.md'), 'summary\n');
      const m = await store.create({ dir: mem }, { lineage: 'demo', kind: 'memory', parent: ws.id, scope: ['memories', 'sessions'] });
      expect(m.kind).toBe('memory');
      const out = join(tempDir(), 'out');
      await store.restoreToDirectory(m.id, out);
      expect(readFileSync(join(out, 'src/lib/a.ts'), 'utf8')).toBe('export const a = 1;\n'); // inherited
      expect(readFileSync(join(out, 'memories/MEMORY.md'), 'utf8')).toContain('new lesson');
      expect(readFileSync(join(out, 'memories/memory_summary.md'), 'utf8')).toBe('summary\n');
      expect(() => readFileSync(join(out, 'sessions/r1.jsonl'))).toThrow(); // sessions/ is in scope and absent: deleted
      const laid = join(tempDir(), 'laid');
      await store.restoreToDirectory(ws.id, laid);
      await store.restoreToDirectory(m.id, laid, { paths: ['memories', 'sessions'] });
      expect(describeTree(laid)).toEqual(describeTree(out)); // the deleted sessions/ is gone here too
      const names = await listTar(await store.exportTar(m.id, { paths: ['memories', 'sessions'] }));
      expect(names.sort()).toEqual(['Directory memories/', 'File memories/MEMORY.md', 'File memories/memory_summary.md']);
    });

    it('creates from an uncompressed tar stream (a sandbox getArchive)', async () => {
      const src = workspace();
      const store = await open();
      const m1 = await store.create({ dir: src }, { lineage: 'demo', kind: 'workspace' });
      const tar = await store.exportTar(m1.id);
      const m2 = await store.create({ tar }, { lineage: 'other', kind: 'workspace' });
      const out = join(tempDir(), 'out');
      await store.restoreToDirectory(m2.id, out);
      expect(describeTree(out)).toEqual(describeTree(src));
      expect(m2.layers[0]!.digest).toBe(m1.layers[0]!.digest); // identical layer stored once
    });

    it('lays only the chosen paths over an existing directory', async () => {
      const src = workspace();
      const store = await open();
      const m = await store.create({ dir: src }, { lineage: 'demo', kind: 'workspace' });
      const checkout = tempDir();
      writeFileSync(join(checkout, 'README.md'), 'fresh checkout\n');
      mkdirSync(join(checkout, 'memories'));
      writeFileSync(join(checkout, 'memories/stale.md'), 'stale\n');
      await store.restoreToDirectory(m.id, checkout, { paths: ['memories', 'sessions'] });
      expect(readFileSync(join(checkout, 'README.md'), 'utf8')).toBe('fresh checkout\n');
      expect(describeTree(checkout)).toEqual({
        'README.md': expect.stringMatching(/^file 644 /),
        memories: 'dir 755',
        'memories/MEMORY.md': describeTree(src)['memories/MEMORY.md'],
        sessions: 'dir 755',
        'sessions/r1.jsonl': describeTree(src)['sessions/r1.jsonl'],
      });
    });
  });
}
