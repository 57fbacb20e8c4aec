import { spawn, execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdirSync, utimesSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { collectGarbage, pruneSnapshots, verifySnapshots } from '../../src/snapshot/maintenance.js';
import { openStore, SnapshotCorruptError, SourceChangedError } from '../../src/snapshot/index.js';
import { describeTree, tempDir } from './helpers.js';

const run = promisify(execFile);
const CHILD = join(import.meta.dirname, 'fixtures/child.ts');
const ROOT = join(import.meta.dirname, '../..');
// node itself (not the tsx wrapper, which forks) so that SIGKILL hits the process doing the work.
const NODE_ARGS = ['--import', 'tsx', CHILD];

function tree(root: string, files: number, bytes: number): void {
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${i % 20}`);
    mkdirSync(dir, { recursive: true });
    const buf = Buffer.alloc(bytes);
    for (let j = 0; j < bytes; j += 8) buf.writeDoubleLE(Math.random(), Math.min(j, bytes - 8));
    writeFileSync(join(dir, `f${i}.bin`), buf);
  }
}

describe('crash safety', () => {
  // Four rounds, each starting node with tsx: over a minute on a loaded two-core machine.
  it('a packer killed at random moments leaves only complete snapshots, and verify passes', async () => {
    const src = tempDir();
    tree(src, 400, 16 * 1024); // ~6.5 MB of incompressible data: packing takes a few hundred ms
    const storeDir = tempDir();
    for (let round = 0; round < 4; round++) {
      const child = spawn(process.execPath, [...NODE_ARGS, 'pack', storeDir, src, 'crash'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let packs = 0;
      const target = 1 + Math.floor(Math.random() * 3);
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          packs += d.toString().split('\n').filter((l) => l === 'packing').length;
          if (packs >= target) setTimeout(() => child.kill('SIGKILL'), Math.random() * 400);
        });
        child.on('exit', () => resolve());
      });
    }
    const store = await openStore(storeDir);
    const listed = await store.list();
    expect(listed.length).toBeGreaterThan(0);
    const results = await verifySnapshots(store);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.length).toBe(listed.length);
    const head = await store.getHead('crash');
    expect(listed.map((m) => m.id)).toContain(head);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(head!, out);
    expect(describeTree(out)).toEqual(describeTree(src));
    await collectGarbage(store, { graceMs: 0 });
    expect(readdirSync(store.tmpDir)).toEqual([]);
    expect((await verifySnapshots(store)).every((r) => r.ok)).toBe(true);
  }, 180_000);
});

describe('compare-and-swap across processes', () => {
  it('two processes advancing the same lineage at once: exactly one wins, the other sees the new head', async () => {
    const src = tempDir();
    writeFileSync(join(src, 'a'), 'a');
    const storeDir = tempDir();
    const store = await openStore(storeDir);
    const base = await store.create({ dir: src }, { lineage: 'race', kind: 'workspace' });
    await store.advanceHead('race', null, base.id);
    for (let round = 0; round < 2; round++) {
      const expected = (await store.getHead('race'))!;
      const a = await store.create({ dir: src }, { lineage: 'race', kind: 'workspace' });
      const b = await store.create({ dir: src }, { lineage: 'race', kind: 'workspace' });
      const at = String(Date.now() + 1500); // both start tsx first, then race at the same instant
      const [ra, rb] = await Promise.all(
        [a.id, b.id].map(async (next) => JSON.parse((await run(process.execPath, [...NODE_ARGS, 'advance', storeDir, 'race', expected, next, at], { cwd: ROOT })).stdout) as { won: boolean; current?: string }),
      );
      expect([ra!.won, rb!.won].filter(Boolean)).toHaveLength(1);
      const winner = ra!.won ? a.id : b.id;
      expect((ra!.won ? rb : ra)!.current).toBe(winner);
      expect(await store.getHead('race')).toBe(winner);
    }
  }, 60_000);
});

describe('damage and change', () => {
  it('a corrupted blob gives a clear error naming the snapshot; verify reports it', async () => {
    const src = tempDir();
    tree(src, 10, 1000);
    const store = await openStore(tempDir());
    const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
    const blob = store.blobs.pathOf(m.layers[0]!.digest);
    const bytes = readFileSync(blob);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    const { chmodSync } = await import('node:fs');
    chmodSync(blob, 0o644);
    writeFileSync(blob, bytes);
    const target = join(tempDir(), 'target');
    const err = (await store.restoreToDirectory(m.id, target).then(() => null, (e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(SnapshotCorruptError);
    expect(err.message).toContain(m.id);
    expect(err.message).toMatch(/does not match its digest|cannot be read/);
    await expect(store.exportTar(m.id)).rejects.toBeInstanceOf(SnapshotCorruptError);
    expect(await verifySnapshots(store)).toEqual([{ id: m.id, ok: false, error: expect.stringContaining(m.id) }]);
    expect(() => readdirSync(target)).toThrow(); // nothing was restored
  });

  it('a file that keeps changing while packed fails the snapshot clearly and stores nothing', async () => {
    const src = tempDir();
    writeFileSync(join(src, 'stable'), 'ok');
    const path = join(src, 'growing.log');
    writeFileSync(path, Buffer.alloc(9 * 1024 * 1024, 1)); // over the small-file limit: streamed, header first
    // Another process appends to it the whole time (a build log being written).
    const appender = spawn(process.execPath, ['-e', `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(path)},'a');for(;;)fs.writeSync(fd,'x'.repeat(4096))`], {
      stdio: 'ignore',
    });
    // Until it is seen appending: a fixed 200 ms wait was shorter than a node start on a loaded machine, and the
    // snapshot of a file nobody touched yet passed (a flaky failure under the full suite).
    const initial = statSync(path).size;
    for (let i = 0; i < 600 && statSync(path).size < initial + 64 * 1024; i++) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(path).size).toBeGreaterThanOrEqual(initial + 64 * 1024);
    const store = await openStore(tempDir());
    const err = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' }).then(() => null, (e: unknown) => e);
    appender.kill('SIGKILL');
    expect(err).toBeInstanceOf(SourceChangedError);
    expect((err as SourceChangedError).message).toContain('growing.log');
    expect(await store.list()).toEqual([]);
    expect(readdirSync(store.tmpDir)).toEqual([]);
  });
});

describe('prune and gc', () => {
  it('prune keeps heads and the newest N; gc removes crash leftovers and unreferenced blobs after the grace period', async () => {
    const src = tempDir();
    const store = await openStore(tempDir());
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      writeFileSync(join(src, `f${i}`), `v${i}`);
      const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace', parent: null });
      ids.push(m.id);
    }
    await store.advanceHead('l', null, ids[1]!); // an old snapshot is the head
    const pruned = await pruneSnapshots(store, { keep: 1, graceMs: 0 });
    expect(pruned.removedSnapshots.sort()).toEqual([ids[0], ids[2]]);
    expect((await store.list()).map((m) => m.id)).toEqual([ids[1], ids[3]]);
    expect(pruned.removedBlobs).toHaveLength(4); // the layer and the tree index of each removed snapshot
    await store.restoreToDirectory(ids[1]!, join(tempDir(), 'ok'));

    // A live writer's pid (this process): its file stays even with no grace, unless untouched for a day (then it
    // was left by an earlier process that had the same pid; a dead pid's file goes at once, below).
    const leftover = join(store.tmpDir, `blob-${process.pid}-leftover`);
    writeFileSync(leftover, 'half a blob');
    expect((await collectGarbage(store, { graceMs: 0 })).removedTemp).toEqual([]);
    mkdirSync(join(store.root, 'snapshots', '20200101T000000000Z-00000000'));
    writeFileSync(join(store.blobs.root, 'sha256', 'a'.repeat(64)), 'unreferenced');
    expect((await collectGarbage(store)).removedBlobs).toEqual([]); // young: spared
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    utimesSync(leftover, twoDaysAgo, twoDaysAgo);
    const r = await collectGarbage(store, { graceMs: 0 });
    expect(r.removedTemp).toEqual([`tmp/blob-${process.pid}-leftover`]);
    expect(r.removedSnapshots).toEqual(['20200101T000000000Z-00000000']);
    expect(r.removedBlobs).toEqual([`sha256:${'a'.repeat(64)}`]);
    expect((await verifySnapshots(store)).every((x) => x.ok)).toBe(true);

    const { rmSync } = await import('node:fs');
    rmSync(join(store.root, 'snapshots', ids[1]!), { recursive: true }); // the head's manifest is lost
    expect(await verifySnapshots(store)).toContainEqual({ id: ids[1], ok: false, error: expect.stringContaining('head of lineage l') });
  });
});

describe('gc and the temp files of writers that are gone', () => {
  it('removes a fresh blob-<pid>-… of a process that no longer runs, and keeps a live writer\'s', async () => {
    const store = await openStore(tempDir());
    mkdirSync(store.tmpDir, { recursive: true });
    // A process that has exited: its pid names no process now (a killed `snapshot create` leaves such a file).
    const child = spawn(process.execPath, ['-e', '0']);
    const dead = await new Promise<number>((done) => child.on('exit', () => done(child.pid!)));
    writeFileSync(join(store.tmpDir, `blob-${dead}-0a1b2c3d4e5f`), Buffer.alloc(4096, 7));
    mkdirSync(join(store.tmpDir, `src-${dead}-0a1b2c3d4e5f`));
    writeFileSync(join(store.tmpDir, `blob-${process.pid}-aaaaaaaaaaaa`), 'in progress');
    writeFileSync(join(store.tmpDir, 'blob-notapid-aaaaaaaaaaaa'), 'unknown writer');
    const report = await collectGarbage(store);
    expect(report.removedTemp.sort()).toEqual([`tmp/blob-${dead}-0a1b2c3d4e5f`, `tmp/src-${dead}-0a1b2c3d4e5f`]);
    expect(readdirSync(store.tmpDir).sort()).toEqual([`blob-${process.pid}-aaaaaaaaaaaa`, 'blob-notapid-aaaaaaaaaaaa']);
  });

  // `snapshot gc --grace 0` while a session packed its workspace removed the blob being written: the session
  // failed with ENOENT on the rename (issue 10, ninth trial). A running writer's temp files are never garbage.
  it('gc with no grace while a snapshot is being written leaves that write alone, and the snapshot lands whole', async () => {
    const src = tempDir();
    tree(src, 600, 32 * 1024); // ~19 MB of incompressible data: packing takes long enough to run gc beside it
    const store = await openStore(tempDir());
    const writing = store.create({ dir: src }, { lineage: 'busy', kind: 'workspace', parent: null });
    let removed: string[] = [];
    for (let i = 0; i < 400 && !removed.length; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const inTmp = readdirSync(store.tmpDir, { withFileTypes: true }).filter((e) => e.name.startsWith('blob-'));
      if (inTmp.length) removed = (await collectGarbage(store, { graceMs: 0 })).removedTemp.concat('ran');
    }
    expect(removed).toEqual(['ran']); // gc ran while the blob was being written, and removed nothing
    const m = await writing;
    expect((await verifySnapshots(store)).every((x) => x.ok)).toBe(true);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  }, 120_000);
});
