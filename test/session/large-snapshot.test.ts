/**
 * Trial 21 F7 (low): a command that timed out left a 1.1 GB file of random bytes in the workspace; the run's
 * snapshot stored it (+1.16 GB) without a word, and every later snapshot of the lineage keeps it. A run whose
 * delta layer stores more than the limit now says so, with how to see it and keep such files out. Real store.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { largeSnapshotNotice } from '../../src/session/large-snapshot.js';
import { tempDir } from '../snapshot/helpers.js';

describe('a run that stored much', () => {
  it('is named by its delta layer, not by the fresh copy, and not for a small change', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'a.py'), 'x = 1\n');
    writeFileSync(join(ws, 'vendor.bin'), randomBytes(3 * 1024 * 1024));
    const store = await openStore(join(tempDir(), 'store'));
    const base = await store.create({ dir: ws }, { lineage: 'big', kind: 'workspace' });
    const limit = 1024 * 1024;
    // The first snapshot holds the whole tree (3 MiB here): large by nature, no notice.
    expect(largeSnapshotNotice(base, null, 'big', limit)).toBeNull();
    writeFileSync(join(ws, 'src', 'a.py'), 'x = 2\n');
    const small = await store.create({ dir: ws }, { lineage: 'big', kind: 'workspace', parent: base.id });
    expect(largeSnapshotNotice(small, base.id, 'big', limit)).toBeNull();
    writeFileSync(join(ws, 'rand.bin'), randomBytes(2 * 1024 * 1024));
    const big = await store.create({ dir: ws }, { lineage: 'big', kind: 'workspace', parent: small.id });
    const notice = largeSnapshotNotice(big, small.id, 'big', limit);
    expect(notice).toMatchObject({ kind: 'large-snapshot', file: big.id });
    expect(notice!.message).toMatch(/added 2\.\d MiB to the store \(1 changed file/);
    expect(notice!.hint).toContain(`mnemara snapshot diff ${small.id} ${big.id}`);
    expect(notice!.hint).toContain('snapshot.ignore');
  });
});
