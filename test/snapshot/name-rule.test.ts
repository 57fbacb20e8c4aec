/**
 * One rule for names (issue 9, new-user trial): `create` accepted `back\slash.txt` and every restore refused it
 * as a hostile archive, so the lineage could never be restored again. Whatever `create` keeps, a restore,
 * `verify` and a `--path` restore accept; whatever a restore refuses, `create` leaves out and lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, UnsafeArchiveError } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { guardPath } from '../../src/snapshot/restore-guard.js';
import { nameRefusal } from '../../src/snapshot/walk.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { decodeName } from '../../src/snapshot/names.js';
import { describeTreeBytes, tempDir } from './helpers.js';
import { buildTar, plantSnapshot } from './tar-builder.js';
import { oddNames, writeOddNames } from '../support/odd-names.js';

describe('one rule for names at create and restore', () => {
  it('round-trips a tree of odd names through create → restore → verify → --path, byte for byte', async () => {
    const dir = tempDir();
    const names = writeOddNames(dir);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'odd', kind: 'workspace' });
    expect(m.skipped ?? []).toEqual([]);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(describeTreeBytes(out)).toEqual(describeTreeBytes(dir));
    expect((await verifySnapshots(store, m.id))[0]).toMatchObject({ ok: true });
    // Each name alone through --path: the same rule for a caller's path as for the archive's.
    const one = join(tempDir(), 'one');
    await store.restoreToDirectory(m.id, one, { paths: names.slice(0, 7).map((n) => decodeName(n)) });
    for (const n of names.slice(0, 7)) expect(readFileSync(Buffer.concat([Buffer.from(`${one}/`), n]), 'utf8')).toBe(n.toString('hex'));
    // And a delta on top (a change to one odd name, one deleted) restores the same way.
    const { writeFileSync, rmSync } = await import('node:fs');
    writeFileSync(join(dir, 'back\\slash.txt'), 'changed');
    rmSync(join(dir, 'C:evil'));
    const d = await store.create({ dir }, { lineage: 'odd', kind: 'workspace', parent: m.id });
    const out2 = join(tempDir(), 'out2');
    await store.restoreToDirectory(d.id, out2);
    expect(describeTreeBytes(out2)).toEqual(describeTreeBytes(dir));
  });

  it("create's and restore's acceptance agree over hostile and odd names", async () => {
    const representable = oddNames().map((n) => decodeName(n));
    const neverOnDisk = ['/abs', '../up', 'a/../../b', 'a\0b', 'x'.repeat(256), `${'d/'.repeat(300)}f`, `${'a'.repeat(200)}/`.repeat(21) + 'f'];
    for (const name of [...representable, ...neverOnDisk]) {
      const createKeeps = nameRefusal(name) === undefined;
      let restoreAccepts = true;
      try {
        guardPath(name, DEFAULT_RESTORE_LIMITS);
      } catch (err) {
        expect(err).toBeInstanceOf(UnsafeArchiveError);
        restoreAccepts = false;
      }
      expect(createKeeps, JSON.stringify(name)).toBe(restoreAccepts);
      expect(restoreAccepts, JSON.stringify(name)).toBe(representable.includes(name));
    }
    // A planted layer with each odd (valid UTF-8) name restores it; the never-on-disk ones are refused whole.
    const store = await openStore(tempDir());
    const utf8 = representable.filter((n) => !/[\uDC80-\uDCFF]/u.test(n) && !n.includes('/'));
    const m = await plantSnapshot(store, buildTar(utf8.map((path) => ({ path, body: path }))));
    const out = join(tempDir(), 'planted');
    await store.restoreToDirectory(m.id, out);
    for (const n of utf8) expect(readFileSync(join(out, n), 'utf8')).toBe(n);
    for (const bad of neverOnDisk.slice(0, 3)) {
      const s = await openStore(tempDir());
      const p = await plantSnapshot(s, buildTar([{ path: bad, body: 'x' }]));
      await expect(s.restoreToDirectory(p.id, join(tempDir(), 'x'))).rejects.toBeInstanceOf(UnsafeArchiveError);
    }
  });
});
