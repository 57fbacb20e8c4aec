/**
 * Issue 9, new-user trial (high): a file of 2 GiB or more in `snapshot patch` / `apply` made git fail with
 * "Out of memory", the message printed git's stderr as a list of byte values, and the hint said to check
 * `git --version`. Such a patch is now refused before git runs, naming the file and how to take it instead
 * (`snapshot restore --path`) and leave it out (`snapshot.ignore`). Sparse files: no disk.
 */
import { randomBytes } from 'node:crypto';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { applyToHost } from '../../src/snapshot/apply.js';
import { openStore } from '../../src/snapshot/index.js';
import { gitStderr, makePatch, PATCH_MAX_FILE_BYTES } from '../../src/snapshot/patch.js';
import { tempDir } from './helpers.js';

const layout = { layoutDirs: ['memories', 'sessions'] };

describe('patches with large files', () => {
  it('refuses a 2 GiB file in patch and apply with a clear error naming it, before git runs', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'small.txt'), 'one\n');
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'big', kind: 'workspace' });
    writeFileSync(join(dir, 'disk image.img'), 'x');
    truncateSync(join(dir, 'disk image.img'), 2 * 1024 ** 3);
    writeFileSync(join(dir, 'small.txt'), 'two\n');
    const started = Date.now();
    for (const attempt of [
      () => makePatch(store, { snapshot: m.id }, { dir }, layout),
      () => applyToHost(store, m.id, dir, { ...layout, force: true }),
    ]) {
      const err = (await attempt().then(() => null, (e: unknown) => e)) as MnemaraError;
      expect(err).toBeInstanceOf(MnemaraError);
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toContain(`disk image.img (${2 * 1024 ** 3} bytes)`);
      expect(err.message).toContain(String(PATCH_MAX_FILE_BYTES));
      expect(err.hint).toContain(`mnemara snapshot restore ${m.id} DIR --path 'disk image.img'`);
      expect(err.hint).toContain('snapshot.ignore');
    }
    expect(Date.now() - started).toBeLessThan(20_000); // refused up front, not after git read 2 GiB
    // Ignored, the same change is an ordinary patch.
    const p = await makePatch(store, { snapshot: m.id }, { dir }, { ...layout, ignore: ['*.img'] });
    expect(p.changed).toEqual(['small.txt']);
    expect(p.text).toContain('+two');
  }, 120_000);

  it("shows git's stderr as text, never as a list of byte values", () => {
    expect(gitStderr(new Uint8Array(Buffer.from('fatal: Out of memory\n')))).toBe('fatal: Out of memory');
    expect(gitStderr(' plain ')).toBe('plain');
  });

  // Trial 25 N8: a patch the size checks allow, over execa's default 100 MB output bound, failed as "git could not
  // be run … Install git". 90 MB of incompressible new files make ~112 MB of base85.
  it('makes a patch whose text is over 100 MB', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'small.txt'), 'one\n');
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'big-text', kind: 'workspace' });
    for (const n of [1, 2, 3]) writeFileSync(join(dir, `blob${n}.bin`), randomBytes(30 * 1024 * 1024));
    const patch = await makePatch(store, { snapshot: m.id }, { dir }, { ...layout, binary: true });
    expect(patch.added.sort()).toEqual(['blob1.bin', 'blob2.bin', 'blob3.bin']);
    expect(patch.bytes.length).toBeGreaterThan(100_000_000);
  }, 180_000);
});
