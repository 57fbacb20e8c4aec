import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, SnapshotCorruptError } from '../../src/snapshot/index.js';
import { WORKER_MIN_BYTES } from '../../src/snapshot/inflate-worker.js';
import { describeTree, tempDir } from './helpers.js';

/** A layer over WORKER_MIN_BYTES is decompressed on a worker thread: the same guarantees must hold there. */
describe('restore of a large layer (decompressed on a worker thread)', () => {
  it('round-trips byte for byte, and a corrupted or missing blob fails naming the snapshot with nothing swapped in', async () => {
    const src = tempDir();
    mkdirSync(join(src, 'bin'));
    for (let i = 0; i < 6; i++) writeFileSync(join(src, 'bin', `blob${i}`), randomBytes(1024 * 1024));
    writeFileSync(join(src, 'README.md'), '# hi\n');
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
    expect(m.layers[0]!.compressedBytes).toBeGreaterThanOrEqual(WORKER_MIN_BYTES);

    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));

    const blob = store.blobs.pathOf(m.layers[0]!.digest);
    const bytes = readFileSync(blob);
    bytes[bytes.length - 100]! ^= 0xff; // past the first MB: the damage is found while streaming, late
    chmodSync(blob, 0o644);
    writeFileSync(blob, bytes);
    const parent = tempDir();
    const err = await store.restoreToDirectory(m.id, join(parent, 'out')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotCorruptError);
    expect((err as Error).message).toContain(m.id);
    expect(readdirSync(parent)).toEqual([]);

    rmSync(blob);
    const missing = await store.restoreToDirectory(m.id, join(parent, 'out')).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SnapshotCorruptError);
    expect((missing as Error).message).toContain('missing');
    expect(existsSync(join(parent, 'out'))).toBe(false);
  }, 60_000);
});
