/**
 * Issue 10, new-user trial (low): `recover --lineage nosuch` exited 0 unlike every other command given an unknown
 * lineage, and `snapshot create /nonexistent` printed a progress line before its exit-2 error. Both are now exit 2
 * with the error (and a hint) as the only output.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'mnemara-usage-'));
const cli = (...args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { MNEMARA_HOME: home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, extendEnv: false, reject: false });

describe('unknown input to recover and snapshot create', { timeout: 120_000 }, () => {
  it('recover --lineage with a lineage that does not exist: exit 2 naming it', async () => {
    const r = await cli('recover', '--lineage', 'nosuch/lineage');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('lineage nosuch/lineage does not exist');
    expect(r.stdout).toBe('');
  });

  it('snapshot create of a directory that does not exist: exit 2, and no progress line before the error', async () => {
    const r = await cli('snapshot', 'create', join(home, 'no-such-dir'), '--lineage', 'x');
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^mnemara: .*no-such-dir is not a directory \(it does not exist\)/);
    expect(r.stdout).toBe('');
  });
});
