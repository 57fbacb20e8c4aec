/**
 * Trial 23 F17: a read-only MNEMARA_HOME (a mount made read-only, a home of another user) ended every command with
 * a Node stack trace of `mkdir`. Now one clear message names the path, says MNEMARA_HOME must be writable and how
 * to point it elsewhere, exit 3; the same for a `--store` that cannot be written. A real read-only tmpfs, as root.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../snapshot/helpers.js';

let ro: string;
beforeAll(async () => {
  // Not a tempDir(): its cleanup after each test would try to remove the mount point.
  ro = join(mkdtempSync(join(tmpdir(), 'mnemara-ro-home-')), 'ro');
  mkdirSync(ro);
  await execa('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro]);
});
afterAll(async () => {
  await execa('umount', ['-l', ro]).catch(() => undefined);
  rmSync(join(ro, '..'), { recursive: true, force: true });
});

const noStack = (s: string): void => expect(s).not.toMatch(/\n\s+at .+[(:]\d+/);

describe('a home or store this process may not write', () => {
  it.each([['snapshot', 'list'], ['lineage', 'list'], ['doctor', '--json']])('%s %s on a read-only home: one clear message, no stack trace', async (...args) => {
    const r = await cli(ro, ...args);
    if (args[0] === 'doctor') {
      // doctor reports, it does not crash: its checks say what failed, the home first (trial 24 N4: it said "ready").
      expect(r.code).toBe(1);
      noStack(r.stdout + r.stderr);
      const writable = (JSON.parse(r.stdout) as { checks: { name: string; ok: boolean; required: boolean; detail: string }[] }).checks.find((c) => c.name === 'writable');
      expect(writable).toMatchObject({ ok: false, required: true });
      expect(writable?.detail).toContain(`cannot write ${ro}`);
      return;
    }
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`cannot write ${ro}/store`);
    expect(r.stderr).toContain(`MNEMARA_HOME (${ro}) must be a writable directory`);
    noStack(r.stderr);
  });

  it('snapshot create with a --store on a read-only mount names the store, not the home', async () => {
    const src = tempDir();
    writeFileSync(join(src, 'a.txt'), 'a\n');
    const r = await cli(tempDir(), 'snapshot', 'create', src, '--lineage', 'x', '--store', join(ro, 'store'), '--json');
    expect(r.code).toBe(3);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('NOT_WRITABLE');
    expect(error.message).toContain(`${ro}/store`);
    expect(error.hint).toContain('--store DIR');
  });
});
