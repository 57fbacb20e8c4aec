/**
 * `snapshot prune --dry-run` (twelfth new-user trial, F16): the disk-full hint recommends `snapshot prune`, which
 * removes history of every lineage by default, and it had no way to see first what it would remove. The dry run
 * removes nothing and reports exactly what the real prune then removes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { pruneSnapshots } from '../../src/snapshot/maintenance.js';
import type { DirectoryStore } from '../../src/snapshot/store/dir-store.js';

const root = mkdtempSync(join(tmpdir(), 'mnemara-prune-dry-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('snapshot prune --dry-run', () => {
  it('removes nothing and lists what the real prune removes', async () => {
    const store = (await openStore(join(root, 'store'))) as DirectoryStore;
    // Full snapshots (no parent), so that an older one's blobs are its own and pruning it frees them.
    let head: string | null = null;
    for (let i = 0; i < 4; i++) {
      const dir = mkdtempSync(join(root, `ws${i}-`));
      writeFileSync(join(dir, 'data.txt'), `version ${i}\n`.repeat(1000 * (i + 1)));
      const m = await store.create({ dir }, { lineage: 'work', kind: 'workspace', parent: null });
      await store.advanceHead('work', head, m.id);
      head = m.id;
    }
    const before = (await store.list()).map((m) => m.id).sort();
    const blobsBefore = (await store.blobs.all()).length;
    const dry = await pruneSnapshots(store, { keep: 1, lineage: 'work', graceMs: 0, dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.removedSnapshots).toHaveLength(3);
    expect(dry.freedBytes).toBeGreaterThan(0);
    expect((await store.list()).map((m) => m.id).sort()).toEqual(before);
    expect((await store.blobs.all()).length).toBe(blobsBefore);
    const real = await pruneSnapshots(store, { keep: 1, lineage: 'work', graceMs: 0 });
    expect(real.dryRun).toBeUndefined();
    expect(real.removedSnapshots.sort()).toEqual([...dry.removedSnapshots].sort());
    expect(real.removedBlobs.sort()).toEqual([...dry.removedBlobs].sort());
    expect(real.freedBytes).toBe(dry.freedBytes);
  });
});
