/**
 * New-user trial 28. F1 (high): the run replaced an empty directory tree a/b/c (already on the host) with a file
 * `a` and a symlink with a directory. `apply --check` said it would work; `apply` failed in git's write phase
 * ("unable to write file 'a' mode 100644: Directory not empty") after deleting the symlink, and said "nothing
 * was written". Now the empty directories in the way are removed first (--check agrees), and a write that fails
 * anyway is undone byte for byte (the backup in apply-rollback.ts). F2 (medium): a directory git apply removed
 * with its only file came back 0700; a directory's mode change was not carried over. Real trees, store and git.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { applySnapshot, describeApply } from '../../src/cli/commands/apply.js';
import { MnemaraError } from '../../src/config/errors.js';
import { applyToHost } from '../../src/snapshot/apply.js';
import { openStore } from '../../src/snapshot/index.js';
import { testConfig } from '../session/harness.js';
import { describeTree, tempDir } from './helpers.js';

const LAYOUT = { layoutDirs: ['memories', 'sessions'] };

function twoTrees(fill: (dir: string) => void): [host: string, ran: string] {
  const [host, ran] = [tempDir(), tempDir()];
  fill(host);
  fill(ran);
  return [host, ran];
}

async function storeWith(ran: string) {
  const store = await openStore(join(tempDir(), 'store'));
  const m = await store.create({ dir: ran }, { lineage: 'rb', kind: 'workspace' });
  const restored = join(tempDir(), 'restored');
  await store.restoreToDirectory(m.id, restored);
  return { store, m, restored };
}

const failure = (p: Promise<unknown>): Promise<MnemaraError> => p.then(() => Promise.reject(new Error('expected a failure')), (e: MnemaraError) => e);
/** Directory mtimes (ms) of a tree, to tell a rollback put the times back too. */
const dirTimes = (root: string): Record<string, number> => {
  const out: Record<string, number> = { '.': lstatSync(root).mtimeMs };
  for (const [p, d] of Object.entries(describeTree(root))) if (d.startsWith('dir')) out[p] = lstatSync(join(root, p)).mtimeMs;
  return out;
};

describe('apply: an empty directory tree replaced by a file, a symlink by a directory (trial 28 F1)', () => {
  it('--check and apply agree, and the apply makes the snapshot', async () => {
    const [host, ran] = twoTrees((dir) => {
      writeFileSync(join(dir, 'keep.txt'), 'keep\n');
      mkdirSync(join(dir, 'a', 'b', 'c'), { recursive: true });
      symlinkSync('keep.txt', join(dir, 'sym_a'));
    });
    rmSync(join(ran, 'sym_a'));
    mkdirSync(join(ran, 'sym_a'));
    rmSync(join(ran, 'a'), { recursive: true });
    writeFileSync(join(ran, 'a'), '');
    const { store, m, restored } = await storeWith(ran);

    const before = describeTree(host);
    const check = await applyToHost(store, m.id, host, { ...LAYOUT, force: true, check: true });
    expect(describeTree(host)).toEqual(before);
    expect(check).toMatchObject({ applied: false, added: ['a'], removed: ['sym_a'], dirsAdded: ['sym_a'], dirsRemoved: ['a', 'a/b', 'a/b/c'] });

    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r).toMatchObject({ applied: true, added: check.added, removed: check.removed, dirsAdded: check.dirsAdded, dirsRemoved: check.dirsRemoved });
    expect(r.warnings).toBeUndefined();
    expect(describeTree(host)).toEqual(describeTree(restored));
    expect(readdirSync(host).filter((n) => n.startsWith('.mnemara'))).toEqual([]);
    expect(describeApply(r).split('\n').slice(1)).toEqual(describeApply(check).split('\n').slice(1));
  });

  it('a directory in the way that holds files apply leaves alone: --check and apply both refuse, nothing is written', async () => {
    const [host, ran] = twoTrees((dir) => {
      writeFileSync(join(dir, 'keep.txt'), 'keep\n');
      symlinkSync('keep.txt', join(dir, 'sym'));
      mkdirSync(join(dir, 'a', '__pycache__'), { recursive: true });
    });
    writeFileSync(join(host, 'a', '__pycache__', 'm.pyc'), 'pyc');
    rmSync(join(ran, 'sym'));
    rmSync(join(ran, 'a'), { recursive: true });
    writeFileSync(join(ran, 'a'), 'now a file\n');
    const { store, m } = await storeWith(ran);
    const before = describeTree(host);
    for (const check of [true, false]) {
      const err = await failure(applyToHost(store, m.id, host, { ...LAYOUT, force: true, check }));
      expect(err).toMatchObject({ code: 'APPLY_FAILED', message: expect.stringContaining('the directory a/, which holds files apply leaves alone') });
      expect(describeTree(host)).toEqual(before);
    }
  });
});

describe('apply: a write that fails in git apply is undone (trial 28 F1)', () => {
  it('an immutable file stops git after it wrote others: everything is put back byte for byte, and said', async () => {
    const [host, ran] = twoTrees((dir) => {
      writeFileSync(join(dir, 'a1.txt'), 'one\n');
      writeFileSync(join(dir, 'b.txt'), 'bee\n');
      chmodSync(join(dir, 'b.txt'), 0o751);
      mkdirSync(join(dir, 'd'));
      chmodSync(join(dir, 'd'), 0o750);
      writeFileSync(join(dir, 'd', 'only.txt'), 'only\n');
      symlinkSync('a1.txt', join(dir, 'sym'));
      symlinkSync('b.txt', join(dir, 'sym2'));
      mkdirSync(join(dir, 'e', 'f'), { recursive: true });
      writeFileSync(join(dir, 'z.txt'), 'zed\n');
    });
    writeFileSync(join(ran, 'a1.txt'), 'one, changed\n');
    rmSync(join(ran, 'b.txt'));
    rmSync(join(ran, 'd', 'only.txt'));
    rmSync(join(ran, 'sym'));
    mkdirSync(join(ran, 'sym'));
    writeFileSync(join(ran, 'sym', 'in.txt'), 'in\n');
    rmSync(join(ran, 'sym2'));
    symlinkSync('z.txt', join(ran, 'sym2'));
    rmSync(join(ran, 'e'), { recursive: true });
    writeFileSync(join(ran, 'e'), 'e is a file\n');
    mkdirSync(join(ran, 'new', 'deep'), { recursive: true });
    writeFileSync(join(ran, 'new', 'deep', 'n.txt'), 'new\n');
    writeFileSync(join(ran, 'z.txt'), 'zed, changed\n');
    const { store, m, restored } = await storeWith(ran);

    // z.txt sorts last: git apply has removed and written the others when it cannot write it.
    await execa('chattr', ['+i', join(host, 'z.txt')]);
    try {
      const before = describeTree(host);
      const times = dirTimes(host);
      const inodes = Object.fromEntries(['a1.txt', 'b.txt', 'd/only.txt', 'sym', 'sym2', 'z.txt'].map((p) => [p, lstatSync(join(host, p)).ino]));
      await applyToHost(store, m.id, host, { ...LAYOUT, force: true, check: true }); // git's check cannot see it
      const err = await failure(applyToHost(store, m.id, host, { ...LAYOUT, force: true }));
      expect(err).toMatchObject({ code: 'APPLY_FAILED', message: expect.stringMatching(/^git apply failed while writing, and what it had written was undone: .* is as it was, nothing was written: .*z\.txt/) });
      expect(describeTree(host)).toEqual(before);
      for (const [p, ino] of Object.entries(inodes)) expect(lstatSync(join(host, p)).ino, p).toBe(ino);
      const after = dirTimes(host);
      expect(Object.keys(after)).toEqual(Object.keys(times));
      for (const [p, t] of Object.entries(times)) expect(Math.abs(after[p]! - t), p).toBeLessThan(0.01);
      expect(statSync(join(host, 'd')).mode & 0o777).toBe(0o750);
    } finally {
      await execa('chattr', ['-i', join(host, 'z.txt')]);
    }
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r.applied).toBe(true);
    expect(describeTree(host)).toEqual(describeTree(restored));
  });
});

describe('apply: directory modes (trial 28 F2)', () => {
  it('a directory git apply removed with its only file comes back with the snapshot mode, not 0700', async () => {
    const [host, ran] = twoTrees((dir) => {
      mkdirSync(join(dir, 'onlyfile'));
      chmodSync(join(dir, 'onlyfile'), 0o755);
      writeFileSync(join(dir, 'onlyfile', 'only.txt'), 'only\n');
    });
    rmSync(join(ran, 'onlyfile', 'only.txt'));
    const { store, m, restored } = await storeWith(ran);
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r).toMatchObject({ applied: true, removed: ['onlyfile/only.txt'] });
    expect(statSync(join(host, 'onlyfile')).mode & 0o7777).toBe(0o755);
    expect(describeTree(host)).toEqual(describeTree(restored));
  });

  it("a directory the run chmod-ed gets the snapshot's mode, listed by --check and apply (text and JSON)", async () => {
    const [host, ran] = twoTrees((dir) => {
      mkdirSync(join(dir, 'empty1'));
      chmodSync(join(dir, 'empty1'), 0o755);
      writeFileSync(join(dir, 'f.txt'), 'f\n');
    });
    chmodSync(join(ran, 'empty1'), 0o700);
    const { store, m, restored } = await storeWith(ran);
    const check = await applyToHost(store, m.id, host, { ...LAYOUT, force: true, check: true });
    expect(check).toMatchObject({ applied: false, dirModes: [{ path: 'empty1', from: 0o755, to: 0o700 }] });
    expect(statSync(join(host, 'empty1')).mode & 0o7777).toBe(0o755);
    expect(describeApply(check)).toMatch(/^would apply .*: 0 added, 0 changed, 0 removed, 1 directory mode changed$/m);
    expect(describeApply(check)).toContain('  M empty1/ 0755→0700');
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(JSON.parse(JSON.stringify(r))).toMatchObject({ applied: true, dirModes: [{ path: 'empty1', from: 0o755, to: 0o700 }] });
    expect(statSync(join(host, 'empty1')).mode & 0o7777).toBe(0o700);
    expect(describeTree(host)).toEqual(describeTree(restored));
    expect(describeApply(await applyToHost(store, m.id, host, { ...LAYOUT, force: true }))).toMatch(/^nothing to apply/);
    expect(existsSync(join(host, 'f.txt'))).toBe(true);
  });
});

/**
 * Round 28 follow-up: after a write failed and was undone, the retry (no base: the run started from the host
 * directory) was refused by the host-changed guard, which took the undo's traces (ctimes it cannot set back, the
 * backup directory's coming and going in the root's) for the user's changes. The undo now notes each path it
 * touched as it left it (`<home>/apply-undone/`), and the guard passes those. A real write failure (chattr +i).
 */
describe('apply: a retry after an undone write', () => {
  it('is not refused for the changes the undo itself made, and still is for a later change of the user', async () => {
    const host = tempDir();
    const ran = tempDir();
    for (const d of [host, ran]) {
      writeFileSync(join(d, 'a.txt'), 'a\n');
      mkdirSync(join(d, 'sub'));
      writeFileSync(join(d, 'sub', 'b.txt'), 'b\n');
      writeFileSync(join(d, 'z.txt'), 'z\n');
    }
    writeFileSync(join(ran, 'a.txt'), 'a, changed\n');
    writeFileSync(join(ran, 'sub', 'b.txt'), 'b, changed\n');
    writeFileSync(join(ran, 'sub', 'c.txt'), 'c\n');
    writeFileSync(join(ran, 'z.txt'), 'z, changed\n');
    const home = tempDir();
    const config = testConfig(home, 'http://127.0.0.1:9');
    const store = await openStore(join(home, 'store'));
    const before = describeTree(host);
    let m: Awaited<ReturnType<typeof store.create>> | undefined;
    // z.txt sorts last: git apply writes the others, then fails on it, and the undo puts them back.
    await execa('chattr', ['+i', join(host, 'z.txt')]);
    try {
      // The run started from the host directory (no parent: no base) after every host file was last changed.
      await new Promise((r) => setTimeout(r, 20));
      const started = new Date().toISOString().replace(/[-:]/g, '').replace('.', '');
      await new Promise((r) => setTimeout(r, 20));
      m = await store.create({ dir: ran }, { lineage: 'retry', kind: 'workspace', rolloutIds: [`${started}-0a1b2c3d4e`] });
      const err = await failure(applySnapshot(config, m.id, host, {}));
      expect(err).toMatchObject({ code: 'APPLY_FAILED', message: expect.stringMatching(/what it had written was undone/) });
    } finally {
      await execa('chattr', ['-i', join(host, 'z.txt')]);
    }
    expect(describeTree(host)).toEqual(before);
    // chattr -i moved z.txt's ctime only: its content and mode are as the undo left them, so it is no change either.
    const r = await applySnapshot(config, m!.id, host, { check: true });
    expect(r).toMatchObject({ changed: ['a.txt', 'sub/b.txt', 'z.txt'], added: ['sub/c.txt'] });
    // A change of the user's after the undo is still one.
    writeFileSync(join(host, 'mine.txt'), 'mine\n');
    await expect(applySnapshot(config, m!.id, host, { check: true })).rejects.toMatchObject({ code: 'HOST_CHANGED', message: expect.stringMatching(/changed after the run started .*: \., mine\.txt$/) });
    rmSync(join(host, 'mine.txt'));
    chmodSync(join(host, 'a.txt'), 0o600);
    await expect(applySnapshot(config, m!.id, host, { check: true })).rejects.toMatchObject({ code: 'HOST_CHANGED', message: expect.stringMatching(/: \., a\.txt$/) });
  });
});
