/**
 * New-user trial 27 (low): `mnemara apply` dropped hard links and empty directories without a word. The host had
 * hard1/hard2 as one inode; the agent ran `ln hard1 hard3; echo changed >> hard1; mkdir agentempty`. `snapshot
 * restore` brought back one inode with three names and the directory; apply wrote three separate files and no
 * directory (git's patch format carries neither). Apply now links the snapshot's groups again, gives a host file
 * the snapshot holds apart a copy of its own, creates and removes empty directories (new ones with the snapshot's
 * modes), lists all of it (with --check too), and refuses hostile links. Real trees, real store, real git.
 */
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, appendFileSync, copyFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { describeApply } from '../../src/cli/commands/apply.js';
import { applyToHost } from '../../src/snapshot/apply.js';
import { makeLinks, type StructureWarning } from '../../src/snapshot/apply-structure.js';
import { openStore, UnsafeArchiveError } from '../../src/snapshot/index.js';
import { describeTree, tempDir } from './helpers.js';
import { buildTar, plantSnapshot } from './tar-builder.js';

const LAYOUT = { layoutDirs: ['memories', 'sessions'] };
const b = (dir: string, name: string | Buffer): Buffer => Buffer.concat([Buffer.from(`${dir}/`), Buffer.isBuffer(name) ? name : Buffer.from(name)]);
const inode = (p: string | Buffer): number => lstatSync(p).ino;
const nlink = (p: string | Buffer): number => lstatSync(p).nlink;

/** The trial's host repository: hard1/hard2 one inode, a plain file, an untouched directory. */
function hostRepo(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'app.js'), 'app\n');
  writeFileSync(join(dir, 'hard1'), 'shared\n');
  linkSync(join(dir, 'hard1'), join(dir, 'hard2'));
}

/** The host directory and the run's copy of it, both filled by `fill`. */
function twoTrees(fill: (dir: string) => void): [host: string, ran: string] {
  const [host, ran] = [tempDir(), tempDir()];
  fill(host);
  fill(ran);
  return [host, ran];
}

async function storeWith(ran: string, lineage = 'hl') {
  const store = await openStore(join(tempDir(), 'store'));
  return { store, m: await store.create({ dir: ran }, { lineage, kind: 'workspace' }) };
}

describe('apply reproduces hard links and empty directories', () => {
  it("the trial: a 3-name group with one name's content changed, and an empty directory", async () => {
    const [host, ran] = twoTrees(hostRepo);
    linkSync(join(ran, 'hard1'), join(ran, 'hard3'));
    appendFileSync(join(ran, 'hard1'), 'changed\n');
    mkdirSync(join(ran, 'agentempty'));
    const { store, m } = await storeWith(ran);
    const restored = join(tempDir(), 'restored');
    await store.restoreToDirectory(m.id, restored);
    expect(nlink(join(restored, 'hard3'))).toBe(3);

    const before = describeTree(host);
    const check = await applyToHost(store, m.id, host, { ...LAYOUT, force: true, check: true });
    expect(describeTree(host)).toEqual(before);
    expect(check).toMatchObject({ applied: false, linked: [{ path: 'hard2', to: 'hard1' }, { path: 'hard3', to: 'hard1' }], dirsAdded: ['agentempty'] });
    expect(describeApply(check)).toContain('  L hard3 = hard1 (hard link');
    expect(describeApply(check)).toContain('  A agentempty/');

    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r).toMatchObject({ applied: true, added: ['hard3'], changed: ['hard1', 'hard2'], linked: [{ path: 'hard2', to: 'hard1' }, { path: 'hard3', to: 'hard1' }], dirsAdded: ['agentempty'] });
    expect(r.warnings).toBeUndefined();
    for (const n of ['hard1', 'hard2', 'hard3']) {
      expect(inode(join(host, n)), n).toBe(inode(join(host, 'hard1')));
      expect(nlink(join(host, n)), n).toBe(3);
      expect(readFileSync(join(host, n), 'utf8')).toBe('shared\nchanged\n');
    }
    expect(statSync(join(host, 'agentempty')).isDirectory()).toBe(true);
    expect(describeTree(host)).toEqual(describeTree(restored));
    expect(describeApply(r)).toMatch(/^applied .*: 1 added, 2 changed, 0 removed, 2 hard links, 1 empty directory added$/m);
    // Done: a second apply has nothing to do.
    const again = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(describeApply(again)).toMatch(/^nothing to apply/);
  });

  it('breaks a host group the snapshot splits apart, also when no content changed', async () => {
    const host = tempDir();
    writeFileSync(join(host, 'a'), 'one\n');
    linkSync(join(host, 'a'), join(host, 'b'));
    linkSync(join(host, 'a'), join(host, 'c'));
    writeFileSync(join(host, 'x'), 'x\n');
    linkSync(join(host, 'x'), join(host, 'y'));
    const ran = tempDir();
    for (const n of ['a', 'b', 'c', 'x', 'y']) copyFileSync(join(host, n), join(ran, n));
    // The run: a and c stay one file, b becomes a file of its own (same content); x and y are held apart.
    linkSync(join(ran, 'a'), join(ran, 'c.tmp'));
    renameSync(join(ran, 'c.tmp'), join(ran, 'c'));
    const { store, m } = await storeWith(ran);

    const check = await applyToHost(store, m.id, host, { ...LAYOUT, force: true, check: true });
    expect(check).toMatchObject({ added: [], changed: [], removed: [], unlinked: ['b', 'y'] });
    expect(inode(join(host, 'b'))).toBe(inode(join(host, 'a')));
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r).toMatchObject({ applied: true, unlinked: ['b', 'y'] });
    expect(r.linked).toBeUndefined();
    expect(inode(join(host, 'c'))).toBe(inode(join(host, 'a')));
    expect(inode(join(host, 'b'))).not.toBe(inode(join(host, 'a')));
    expect(inode(join(host, 'y'))).not.toBe(inode(join(host, 'x')));
    expect([nlink(join(host, 'a')), nlink(join(host, 'b')), nlink(join(host, 'x')), nlink(join(host, 'y'))]).toEqual([2, 1, 1, 1]);
    for (const [n, text] of [['a', 'one\n'], ['b', 'one\n'], ['c', 'one\n'], ['x', 'x\n'], ['y', 'x\n']]) expect(readFileSync(join(host, n!), 'utf8')).toBe(text);
    expect(describeApply(r)).toContain('  U b (a file of its own now');
    expect(describeApply(await applyToHost(store, m.id, host, { ...LAYOUT, force: true }))).toMatch(/^nothing to apply/);
  });

  it('adds empty and nested empty directories with their modes, removes the ones the run removed, keeps a directory the run emptied', async () => {
    const host = tempDir();
    mkdirSync(join(host, 'old', 'empty'), { recursive: true });
    mkdirSync(join(host, 'gone'));
    mkdirSync(join(host, 'emptied'));
    writeFileSync(join(host, 'emptied', 'f.txt'), 'f\n');
    mkdirSync(join(host, 'cache', '__pycache__'), { recursive: true });
    writeFileSync(join(host, 'cache', '__pycache__', 'm.pyc'), 'pyc');
    writeFileSync(join(host, 'README.md'), 'readme\n');
    const ran = tempDir();
    writeFileSync(join(ran, 'README.md'), 'readme\n');
    mkdirSync(join(ran, 'emptied'));
    mkdirSync(join(ran, 'n1', 'n2', 'n3'), { recursive: true });
    mkdirSync(join(ran, 'private'));
    writeFileSync(join(ran, 'private', 'key.txt'), 'k\n');
    chmodSync(join(ran, 'n1', 'n2'), 0o750);
    chmodSync(join(ran, 'private'), 0o700);
    const { store, m } = await storeWith(ran);

    const check = await applyToHost(store, m.id, host, { ...LAYOUT, force: true, check: true });
    expect(check).toMatchObject({ dirsAdded: ['n1', 'n1/n2', 'n1/n2/n3'], dirsRemoved: ['gone', 'old', 'old/empty'] });
    expect(existsSync(join(host, 'gone'))).toBe(true);
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r).toMatchObject({ removed: ['emptied/f.txt'], added: ['private/key.txt'], dirsAdded: ['n1', 'n1/n2', 'n1/n2/n3'], dirsRemoved: ['gone', 'old', 'old/empty'] });
    for (const d of ['old', 'gone']) expect(existsSync(join(host, d)), d).toBe(false);
    expect(statSync(join(host, 'emptied')).isDirectory()).toBe(true);
    expect(statSync(join(host, 'n1', 'n2', 'n3')).isDirectory()).toBe(true);
    expect(statSync(join(host, 'n1', 'n2')).mode & 0o777).toBe(0o750);
    expect(statSync(join(host, 'private')).mode & 0o777).toBe(0o700);
    // A directory the run removed that still holds what apply leaves alone (a byte-code cache) is kept, and said.
    expect(existsSync(join(host, 'cache', '__pycache__', 'm.pyc'))).toBe(true);
    expect(r.warnings).toEqual([{ path: 'cache', message: expect.stringContaining('directory kept') }]);
    expect(describeApply(r)).toContain('  D gone/');
    expect(describeApply(r)).toContain('  ! cache: directory kept');
  });

  it('links names that are not UTF-8 or hold a newline, also in a directory whose name is not UTF-8', async () => {
    const FF = Buffer.from('n-\xff', 'latin1');
    const FE = Buffer.from('z\xe9/n-\xfe', 'latin1');
    const NL = Buffer.from('nl\nname');
    const [host, ran] = twoTrees((dir) => {
      writeFileSync(b(dir, FF), 'bytes\n');
      mkdirSync(b(dir, Buffer.from('z\xe9', 'latin1'))); // sorts after n-…: a link is made in it
    });
    linkSync(b(ran, FF), b(ran, FE));
    linkSync(b(ran, FF), b(ran, NL));
    const { store, m } = await storeWith(ran);
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r.linked).toHaveLength(2);
    expect(r.warnings).toBeUndefined();
    for (const n of [FE, NL]) expect(inode(b(host, n))).toBe(inode(b(host, FF)));
    expect(nlink(b(host, FF))).toBe(3);
    expect(describeApply(r)).toContain('  L "nl\\nname" = ');
    expect(describeApply(await applyToHost(store, m.id, host, { ...LAYOUT, force: true }))).toMatch(/^nothing to apply/);
  });

  it('links a new name to an unchanged top-level file (the patch read it as a corrupt snapshot: ENOENT)', async () => {
    const [host, ran] = twoTrees((dir) => writeFileSync(join(dir, 'top'), 'same\n'));
    linkSync(join(ran, 'top'), join(ran, 'top-too'));
    const { store, m } = await storeWith(ran);
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r).toMatchObject({ applied: true, added: ['top-too'], changed: [], linked: [{ path: 'top-too', to: 'top' }] });
    expect(inode(join(host, 'top-too'))).toBe(inode(join(host, 'top')));
  });

  it('keeps a copy and says so when the file system refuses the link (another mount: EXDEV)', async () => {
    // A real mount inside the host tree: a link from it to a file outside it is refused by the kernel.
    const host = tempDir();
    writeFileSync(join(host, 'keep'), 'k\n');
    mkdirSync(join(host, 'mnt'));
    await execa('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', join(host, 'mnt')]);
    try {
      const ran = tempDir();
      writeFileSync(join(ran, 'keep'), 'k\n');
      writeFileSync(join(ran, 'cross'), 'content\n');
      mkdirSync(join(ran, 'mnt'));
      linkSync(join(ran, 'cross'), join(ran, 'mnt', 'cross2'));
      const { store, m } = await storeWith(ran);
      const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
      expect(r.linked).toBeUndefined();
      expect(r.warnings).toEqual([{ path: 'mnt/cross2', to: 'cross', message: expect.stringContaining('EXDEV') }]);
      expect(readFileSync(join(host, 'mnt', 'cross2'), 'utf8')).toBe('content\n');
      expect(describeApply(r)).toMatch(/^ {2}! mnt\/cross2 \(to cross\): could not be made a hard link of cross \(EXDEV: another file system\): kept as a separate copy/m);
      expect(JSON.parse(JSON.stringify(r)).warnings[0].message).toContain('kept as a separate copy');
    } finally {
      await execa('umount', ['-l', join(host, 'mnt')]);
    }
  });
});

describe('mnemara apply (the command line)', { timeout: 120_000 }, () => {
  it('--check --json lists the links and directories, the apply makes them and prints them', async () => {
    const [host, ran] = twoTrees(hostRepo);
    linkSync(join(ran, 'hard1'), join(ran, 'hard3'));
    appendFileSync(join(ran, 'hard1'), 'changed\n');
    mkdirSync(join(ran, 'agentempty'));
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const m = await store.create({ dir: ran }, { lineage: 'trial', kind: 'workspace' });
    await store.advanceHead('trial', null, m.id);
    const cli = (args: string[]) =>
      execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'apply', '-w', host, '--lineage', 'trial', '--force', ...args], { env: { MNEMARA_HOME: home }, reject: false });
    const check = await cli(['--check', '--json']);
    expect(check.exitCode, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ applied: false, linked: [{ path: 'hard2', to: 'hard1' }, { path: 'hard3', to: 'hard1' }], dirsAdded: ['agentempty'] });
    expect(existsSync(join(host, 'agentempty'))).toBe(false);
    const r = await cli([]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('1 added, 2 changed, 0 removed, 2 hard links, 1 empty directory added');
    expect(r.stdout).toContain('  L hard2 = hard1 (hard link');
    expect(r.stdout).toContain('  A agentempty/');
    expect(nlink(join(host, 'hard3'))).toBe(3);
  });
});

describe('hostile hard links', () => {
  it('a snapshot with a hard link out of the tree or to a symlink is refused whole; nothing is written or followed', async () => {
    for (const entries of [
      [{ path: 'ok.txt', body: 'ok' }, { path: 'pw', type: 'Link' as const, linkpath: '../../etc/passwd' }],
      [{ path: 'etc', type: 'SymbolicLink' as const, linkpath: '/etc' }, { path: 'pw', type: 'Link' as const, linkpath: 'etc/passwd' }],
      [{ path: 'etc', type: 'SymbolicLink' as const, linkpath: '/etc' }, { path: 'pw', type: 'Link' as const, linkpath: 'etc' }],
    ]) {
      const store = await openStore(tempDir());
      const m = await plantSnapshot(store, buildTar(entries));
      const host = tempDir();
      writeFileSync(join(host, 'mine.txt'), 'mine\n');
      const before = describeTree(host);
      const links = nlink('/etc/passwd');
      const err = await applyToHost(store, m.id, host, { ...LAYOUT, force: true }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeArchiveError);
      expect((err as Error).message).toMatch(/hardlink to something that is not a file|"\.\." segment/);
      expect(describeTree(host)).toEqual(before);
      expect(nlink('/etc/passwd')).toBe(links);
    }
  });

  it('the linker refuses a target outside the directory, through a symlink, or a symlink itself, with a warning each', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ok.txt'), 'ok\n');
    symlinkSync('/etc', join(dir, 'etc'));
    symlinkSync('/etc/passwd', join(dir, 'pwlink'));
    mkdirSync(join(dir, 'sub'));
    const links = nlink('/etc/passwd');
    const warnings: StructureWarning[] = [];
    const made = await makeLinks(
      dir,
      [
        { path: 'pw', to: '../../etc/passwd' },
        { path: 'pw2', to: '/etc/passwd' },
        { path: 'pw3', to: 'etc/passwd' },
        { path: 'pw4', to: 'pwlink' },
        { path: 'etc/mnemara-evil', to: 'ok.txt' },
        { path: 'sub/../../evil', to: 'ok.txt' },
        { path: 'sub/fine', to: 'ok.txt' },
      ],
      warnings,
    );
    expect(made).toEqual([{ path: 'sub/fine', to: 'ok.txt' }]);
    expect(warnings.map((w) => w.path)).toEqual(['pw', 'pw2', 'pw3', 'pw4', 'etc/mnemara-evil', 'sub/../../evil']);
    for (const w of warnings) expect(w.message).toMatch(/^hard link refused: .*; nothing written$/);
    expect(warnings[0]!.message).toContain('would leave the directory');
    expect(warnings[2]!.message).toContain('etc is a symlink');
    expect(warnings[3]!.message).toContain('pwlink is a symlink');
    for (const n of ['pw', 'pw2', 'pw3', 'pw4']) expect(existsSync(join(dir, n)), n).toBe(false);
    expect(existsSync('/etc/mnemara-evil')).toBe(false);
    expect(nlink('/etc/passwd')).toBe(links);
    expect(inode(join(dir, 'sub', 'fine'))).toBe(inode(join(dir, 'ok.txt')));
    rmSync(join(dir, 'etc'));
  });
});
