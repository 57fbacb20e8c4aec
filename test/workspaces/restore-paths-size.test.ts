import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { exportChain } from '../../src/snapshot/export.js';
import { resolveLimits } from '../../src/snapshot/limits.js';
import { tempDir } from '../snapshot/helpers.js';

/** A workspace with a small memory layout next to `mb` MiB of incompressible files. */
function bigWorkspace(mb: number): string {
  const ws = tempDir();
  mkdirSync(join(ws, 'memories'));
  writeFileSync(join(ws, 'memories', 'MEMORY.md'), '# memory\n- keep tests green\n');
  mkdirSync(join(ws, 'data'));
  for (let i = 0; i < mb; i++) writeFileSync(join(ws, 'data', `blob-${i}.bin`), randomBytes(1024 * 1024));
  return ws;
}

describe('a restore limited to some paths, on a lineage of any size', () => {
  it('restores memories/ from a 40 MiB snapshot (the bytes it skips are accounted, not counted as inflation)', async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: bigWorkspace(40) }, { lineage: 'r', kind: 'workspace' });
    const out = join(tempDir(), 'out');
    const r = await store.restoreToDirectory(m.id, out, { paths: ['memories'] });
    expect(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).toContain('keep tests green');
    expect(r.files).toBeLessThan(5);
  });

  it('restores memories/ from a chain whose delta layers are large too', async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const ws = bigWorkspace(12);
    await store.advanceHead('r', null, (await store.create({ dir: ws }, { lineage: 'r', kind: 'workspace' })).id);
    for (let i = 0; i < 12; i++) writeFileSync(join(ws, 'data', `more-${i}.bin`), randomBytes(1024 * 1024));
    writeFileSync(join(ws, 'memories', 'MEMORY.md'), '# memory\n- second run\n');
    const m2 = await store.create({ dir: ws }, { lineage: 'r', kind: 'workspace' });
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m2.id, out, { paths: ['memories'] });
    expect(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).toContain('second run');
  });

  it('exports only memories/ of a large snapshot (the --memory-from path)', async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: bigWorkspace(20) }, { lineage: 'r', kind: 'workspace' });
    const s = await exportChain(store.blobs, m, { paths: ['memories'], limits: resolveLimits() });
    let n = 0;
    for await (const c of s) n += (c as Buffer).length;
    expect(n).toBeGreaterThan(1024);
    expect(n).toBeLessThan(64 * 1024);
  });

  it('still stops an archive that inflates beyond what its entries declare', async () => {
    const { ArchiveBudget } = await import('../../src/snapshot/restore-guard.js');
    const b = new ArchiveBudget(resolveLimits());
    b.declare('skipped.bin', 10 * 1024 * 1024);
    b.onInflated(10 * 1024 * 1024);
    expect(() => b.onInflated(20 * 1024 * 1024)).toThrow(/inflates to more than its entries declare/);
  });
});
