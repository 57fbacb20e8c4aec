/**
 * Trial 25: `doctor --store S` with S on a full filesystem of its own said "ready" (the next run failed ENOSPC at its
 * snapshot); and `snapshot restore` with a read-only home wrote the whole tree, then failed "Nothing was changed"
 * because the record of the restore could not be written. A real tmpfs for the store, a read-only one for the home.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../snapshot/helpers.js';

let base: string;
let small: string;
let ro: string;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'mnemara-store-disk-'));
  small = join(base, 'small');
  ro = join(base, 'ro');
  mkdirSync(small);
  mkdirSync(ro);
  await execa('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', small]);
});
afterAll(async () => {
  for (const m of [small, ro]) await execa('umount', ['-l', m]).catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
});

/**
 * `mnemara run --json` of a one-file workspace with `--store store`, a fresh home and a model endpoint that is
 * configured but never reached: the run gets as far as it can before the store.
 */
async function runOn(store: string, lineage: string) {
  const ws = tempDir();
  writeFileSync(join(ws, 'app.py'), 'print(1)\n');
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '-w', ws, '--lineage', lineage, '--store', store, '--task', 'anything', '--json'], {
    cwd: join(import.meta.dirname, '../..'),
    env: { ...process.env, MNEMARA_HOME: tempDir(), ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', MNEMARA_LOG_LEVEL: 'error' },
    reject: false,
  });
}

type Checks = { checks: { name: string; ok: boolean; required: boolean; detail: string }[] };

describe('doctor and a store of its own', () => {
  it('checks the free space of a store on another filesystem', async () => {
    const r = await cli(tempDir(), 'doctor', '--store', join(small, 'store'), '--json');
    const disk = (JSON.parse(r.stdout) as Checks).checks.find((c) => c.name === 'disk (store)');
    expect(disk).toMatchObject({ ok: false, required: true });
    expect(disk?.detail).toContain(small);
    expect(r.code).toBe(1);
    // A 4 MiB filesystem can never have 2 GiB free: the fix says to use another one, not to free space there.
    const fix = (disk as { fix?: string } | undefined)?.fix ?? '';
    expect(fix).toMatch(/holds only 4(\.0)? MiB in all/);
    expect(fix).toContain('--store');
    expect(fix).not.toMatch(/^free at least/);
  });

  it('says to free space on a filesystem large enough to have it', async () => {
    // 2.2 GiB in all, 1 GiB taken: freeing space there would help. tmpfs pages are only used once written.
    const big = join(base, 'big');
    mkdirSync(big);
    await execa('mount', ['-t', 'tmpfs', '-o', 'size=2200m', 'tmpfs', big]);
    try {
      await execa('fallocate', ['-l', '1g', join(big, 'taken')]);
      const r = await cli(tempDir(), 'doctor', '--store', join(big, 'store'), '--json');
      const disk = (JSON.parse(r.stdout) as Checks).checks.find((c) => c.name === 'disk (store)') as { ok: boolean; fix?: string };
      expect(disk.ok).toBe(false);
      expect(disk.fix).toMatch(/^free at least 2(\.0)? GiB there/);
    } finally {
      await execa('umount', ['-l', big]);
    }
  });

  it('adds no store line when the store shares the home\'s filesystem', async () => {
    const home = tempDir();
    const r = await cli(home, 'doctor', '--store', join(home, 'elsewhere'), '--json');
    expect((JSON.parse(r.stdout) as Checks).checks.map((c) => c.name)).not.toContain('disk (store)');
  });
});

describe('a read-only home or store', () => {
  it('snapshot restore with a read-only home keeps the restore, says the record was not written, and exits 0', async () => {
    const home = join(base, 'home');
    mkdirSync(home);
    const src = tempDir();
    writeFileSync(join(src, 'a.txt'), 'a\n');
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'memories', 'MEMORY.md'), '# Memory\n');
    const created = await cli(home, 'snapshot', 'create', src, '--lineage', 'ro', '--json');
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { snapshot: { id: string } }).snapshot.id;
    // The same home, now read-only.
    await execa('mount', ['--bind', home, ro]);
    await execa('mount', ['-o', 'remount,bind,ro', ro]);
    const out = join(base, 'out');
    const r = await cli(ro, 'snapshot', 'restore', id, out);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, 'a.txt'))).toBe(true);
    expect(r.stderr).toMatch(/warning: restored, but which snapshot .* could not be recorded/);
    expect(r.stderr).not.toContain('Nothing was changed');
  });

  // Trial 25 N10: a read-only `--store` with a writable home let the run go on, model and all, and failed at the
  // workspace snapshot, leaving its sandbox. It is refused before anything starts.
  it('a run with a read-only --store is refused before the sandbox starts', async () => {
    const storeHome = join(base, 'store-home');
    mkdirSync(storeHome);
    const src = tempDir();
    writeFileSync(join(src, 'a.txt'), 'a\n');
    expect((await cli(storeHome, 'snapshot', 'create', src, '--lineage', 'x', '--json')).code).toBe(0);
    const roStore = join(base, 'ro-store');
    mkdirSync(roStore);
    await execa('mount', ['--bind', join(storeHome, 'store'), roStore]);
    await execa('mount', ['-o', 'remount,bind,ro', roStore]);
    try {
      const run = await runOn(roStore, 'ro-store');
      const r = { code: run.exitCode, stdout: run.stdout, stderr: run.stderr };
      expect(r.code, r.stderr).toBe(3);
      const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } };
      expect(error.code).toBe('NOT_WRITABLE');
      expect(error.message).toContain(roStore);
      expect(error.hint).toContain('--store DIR');
      // Nothing started: no sandbox step, no rollout named.
      expect(r.stderr).not.toContain('sandbox');
    } finally {
      await execa('umount', ['-l', roStore]).catch(() => undefined);
    }
  }, 60_000);

  // Trial 26 N14: a store on a full filesystem (doctor: `✗ disk (store) 0 B free`) ran the agent, model paid, then
  // failed ENOSPC at the workspace snapshot and left its sandbox. It is refused up front, like a read-only one.
  it('a run with a --store on a full filesystem is refused before the sandbox starts', async () => {
    const full = join(base, 'full');
    mkdirSync(full);
    // Above the floor when empty: only the filling makes it refuse.
    await execa('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', full]);
    try {
      const store = join(full, 'store');
      mkdirSync(join(store, 'tmp'), { recursive: true });
      await execa('dd', ['if=/dev/zero', `of=${join(full, 'filler.bin')}`, 'bs=64k'], { reject: false });
      const run = await runOn(store, 'full-store');
      expect(run.exitCode, run.stderr).toBe(3);
      const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string; hint: string } };
      expect(error.code).toBe('DISK_FULL');
      // How much is free, how much is needed at least, where, and what to do.
      expect(error.message).toContain(`0 B free at ${store},`);
      expect(error.message).toContain('below the 16.0 MiB a run needs at least');
      expect(error.hint).toContain(`snapshot gc --grace 0 --store ${store}`);
      expect(error.hint).toContain('--store DIR');
      expect(run.stderr).not.toContain('sandbox');
    } finally {
      await execa('umount', ['-l', full]).catch(() => undefined);
    }
  }, 60_000);
});
