/**
 * Fourth new-user trial (medium): `snapshot restore kill@<rollout> DIR` said "not found" although `recover` and the
 * run summary name work kept off the head by that branch name. Snapshot commands take an id, a branch or a lineage.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotRef } from '../../src/cli/snapshot-ref.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

describe('snapshot references on the command line', () => {
  it('an id as it is, a branch LINEAGE@ROLLOUT, a lineage for its head; anything else is NOT_FOUND with where to look', async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const src = join(tempDir(), 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'a.txt'), 'a');
    const head = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
    await store.advanceHead('ci/main', null, head.id);
    writeFileSync(join(src, 'a.txt'), 'b');
    const kept = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace', parent: head.id });
    await store.moveBranch('ci/main@20261202T045800221Z-7be1b4bea1', null, kept.id);
    expect(await snapshotRef(store, head.id)).toBe(head.id);
    expect(await snapshotRef(store, 'ci/main')).toBe(head.id);
    expect(await snapshotRef(store, 'ci/main@20261202T045800221Z-7be1b4bea1')).toBe(kept.id);
    await expect(snapshotRef(store, 'ci/main@nosuch')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('branch') });
    await expect(snapshotRef(store, 'other')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('lineage') });
  });
});
