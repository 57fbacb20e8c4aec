/**
 * Issue 9, new-user trial (high): `create` keeps paths just under PATH_MAX relative to its root; a host restore
 * into a target with a longer path then failed with ENAMETOOLONG in the staging directory, reported as
 * "snapshot … is corrupt" with a `lineage reset` hint, while `verify` said ok. Restores now write through short
 * aliases of the staging and target directories, so the target's own length no longer matters; a path that
 * cannot be written anywhere is a clear error saying what to do, never "corrupt".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { openStore } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { shortPath } from '../../src/snapshot/short-path.js';
import { removeTree } from '../../src/snapshot/swap.js';
import { tempDir } from '../snapshot/helpers.js';
import { buildTar, plantSnapshot } from '../snapshot/tar-builder.js';

/** `count` directories of 200-byte names: the relative path of a file `leaf.txt` under them. */
const deep = (count: number, fill = 'p'): string[] => Array.from({ length: count }, (_, i) => `${String(i).padStart(2, '0')}${fill.repeat(198)}`);

async function readThroughAlias(root: string, rel: string[]): Promise<string> {
  const a = await shortPath(root);
  try {
    return readFileSync(join(a.path, ...rel), 'utf8');
  } finally {
    await a.release();
  }
}

describe('restore into a target with a long path', () => {
  it('brings back a tree with paths just under PATH_MAX whole and by --path, wherever the target lies', async () => {
    const src = tempDir('m-');
    // With the root's own ~20 bytes the leaf is just under PATH_MAX: what create keeps.
    const parts = deep(19);
    const room = 4095 - Buffer.byteLength(src) - 1 - parts.join('/').length - 1 - 1;
    const leafDir = [...parts, 'x'.repeat(Math.min(200, room - 'leaf.txt'.length - 1))];
    const a = await shortPath(src);
    mkdirSync(join(a.path, ...leafDir), { recursive: true });
    writeFileSync(join(a.path, ...leafDir, 'leaf.txt'), 'deep leaf');
    await a.release();
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'long', kind: 'workspace' });
    expect(m.skipped ?? []).toEqual([]);
    expect((await verifySnapshots(store, m.id))[0]).toMatchObject({ ok: true });

    const longPrefix = join(tempDir(), 'T'.repeat(250), 'U'.repeat(250), 'V'.repeat(250));
    mkdirSync(longPrefix, { recursive: true });
    const whole = join(longPrefix, 'whole');
    await store.restoreToDirectory(m.id, whole);
    expect(await readThroughAlias(whole, [...leafDir, 'leaf.txt'])).toBe('deep leaf');

    const some = join(longPrefix, 'some');
    mkdirSync(some);
    writeFileSync(join(some, 'kept.txt'), 'kept');
    await store.restoreToDirectory(m.id, some, { paths: [parts[0]!] });
    expect(await readThroughAlias(some, [...leafDir, 'leaf.txt'])).toBe('deep leaf');
    expect(readFileSync(join(some, 'kept.txt'), 'utf8')).toBe('kept');
    // rmSync (the temp-dir cleanup) cannot name these paths either; the restore's own removal can.
    await removeTree(longPrefix);
    await removeTree(src);
  }, 120_000);

  it('a path no restore can write is a clear error (what to do), never "corrupt", and the target stays', async () => {
    const store = await openStore(tempDir());
    // 4,090 bytes: the guard accepts it (≤ 4,096) but no file system call can take it with any prefix.
    const rel = [...deep(20), 'y'.repeat(4090 - 20 * 201 - 'leaf'.length - 1), 'leaf'].join('/');
    expect(rel.length).toBe(4090);
    const m = await plantSnapshot(store, buildTar([{ path: rel, body: 'x' }]));
    const target = join(tempDir(), 'target');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'precious');
    const err = (await store.restoreToDirectory(m.id, target).then(() => null, (e: unknown) => e)) as MnemaraError;
    expect(err).toBeInstanceOf(MnemaraError);
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/too long .*ENAMETOOLONG/);
    expect(err.message).not.toMatch(/corrupt/);
    expect(err.hint).toMatch(/short path/);
    expect(readFileSync(join(target, 'keep.txt'), 'utf8')).toBe('precious');
  });
});
