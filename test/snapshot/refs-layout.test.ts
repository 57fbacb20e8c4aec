import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineageRefs } from '../../src/snapshot/store/refs.js';
import { newSnapshotId } from '../../src/snapshot/id.js';
import { tempDir } from './helpers.js';

/**
 * A monorepo's default lineage is a prefix of its packages' (`github.com/acme/mono` and
 * `github.com/acme/mono/packages/app`), and people name lineages `ci/main` and `ci/main/nightly`. With refs as
 * plain paths the second of such a pair failed with a bare ENOTDIR (a file where a directory had to be).
 */
describe('ref layout: a name may be a prefix of another', () => {
  it('keeps a lineage and the lineages below it, in either order, with get, all and remove', async () => {
    for (const order of [['github.com/acme/mono', 'github.com/acme/mono/packages/app'], ['ci/main/nightly', 'ci/main']]) {
      const refs = new LineageRefs(tempDir());
      const ids = order.map(() => newSnapshotId());
      for (const [i, name] of order.entries()) await refs.advance(name, null, ids[i]!);
      for (const [i, name] of order.entries()) expect(await refs.get(name)).toBe(ids[i]);
      expect(await refs.all()).toEqual(Object.fromEntries(order.map((n, i) => [n, ids[i]!])));
      const next = newSnapshotId();
      await refs.advance(order[0]!, ids[0]!, next);
      await refs.remove(order[1]!, ids[1]!);
      expect(await refs.all()).toEqual({ [order[0]!]: next });
    }
  });

  it('does the same for branches (LINEAGE@NAME)', async () => {
    const refs = new LineageRefs(tempDir(), {}, 'branch');
    const a = newSnapshotId();
    const b = newSnapshotId();
    await refs.advance('github.com/acme/mono@before-reset', null, a);
    await expect(refs.advance('github.com/acme/mono@before-reset/x', null, b)).rejects.toThrow(/invalid branch/);
    await refs.advance('github.com/acme/mono/packages/app@r1', null, b);
    expect(await refs.all()).toEqual({ 'github.com/acme/mono@before-reset': a, 'github.com/acme/mono/packages/app@r1': b });
  });

  it("reads refs an older mnemara wrote as plain paths and moves each to the new layout on its next change", async () => {
    const dir = tempDir();
    const old = newSnapshotId();
    mkdirSync(join(dir, 'ci'), { recursive: true });
    writeFileSync(join(dir, 'ci', 'main'), `${old}\n`);
    writeFileSync(join(dir, 'top'), `${old}\n`);
    const refs = new LineageRefs(dir);
    expect(await refs.get('ci/main')).toBe(old);
    expect(await refs.all()).toEqual({ 'ci/main': old, top: old });
    // A stale expectation still conflicts against the 0.1 ref.
    await expect(refs.advance('ci/main', null, newSnapshotId())).rejects.toMatchObject({ name: 'HeadConflictError' });
    const next = newSnapshotId();
    await refs.advance('ci/main', old, next);
    expect(existsSync(join(dir, 'ci', 'main'))).toBe(false);
    expect(await refs.get('ci/main')).toBe(next);
    expect(await refs.all()).toEqual({ 'ci/main': next, top: old });
    // Now the name below it can exist too.
    await refs.advance('ci/main/nightly', null, old);
    expect(Object.keys(await refs.all()).sort()).toEqual(['ci/main', 'ci/main/nightly', 'top']);
  });
});
