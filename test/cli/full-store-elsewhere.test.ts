/**
 * Trial 22 F4: with the store on its own small disk (`--store`), a full store named the home's filesystem (which had
 * room: `df` there showed nothing wrong) and its cleanup commands left out `--store`, so they cleaned the empty
 * default store. The hint now names the filesystem that filled and gives every command the store. Real tmpfs
 * (needs root, as the CI's Docker setup does).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explicitStore } from '../../src/config/io-errors.js';
import { cli } from '../support/cli.js';

let root: string;
let disk: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mnemara-full-store-'));
  disk = join(root, 'small-disk');
  mkdirSync(disk);
  await execa('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
});

afterAll(async () => {
  await execa('umount', ['-l', disk]).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

describe('a full store on a disk of its own', () => {
  it('names that disk and gives each cleanup command --store', async () => {
    const home = join(root, 'home');
    const store = join(disk, 'store');
    const ws = join(root, 'ws');
    mkdirSync(ws);
    // Incompressible: 24 MiB cannot fit in 8.
    for (let i = 0; i < 3; i++) writeFileSync(join(ws, `blob-${i}.bin`), randomBytes(8 * 1024 * 1024));
    const r = await cli(home, 'snapshot', 'create', ws, '--lineage', 'app', '--store', store);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/the disk is full \(ENOSPC\)/);
    expect(r.stderr).toMatch(new RegExp(`Free space on the filesystem of ${disk}(/store)?[ /]`));
    expect(r.stderr).not.toContain(`filesystem of ${home}`);
    for (const command of ['snapshot gc --grace 0', 'snapshot prune --keep 5', 'snapshot verify']) expect(r.stderr).toContain(`mnemara ${command} --store ${store}`);
    expect(r.stderr).not.toMatch(/\n\s+at .+[(:]\d+/);
  }, 120_000);

  it('a store under the home, or in an object store, needs no --store', () => {
    expect(explicitStore('/h', undefined)).toEqual({});
    expect(explicitStore('/h', '/h/store')).toEqual({});
    expect(explicitStore('/h', '/h/../h/store/')).toEqual({});
    expect(explicitStore('/h', 's3://bucket/prefix')).toEqual({});
    expect(explicitStore('/h', '/mnt/big/store')).toEqual({ store: '/mnt/big/store' });
  });
});
