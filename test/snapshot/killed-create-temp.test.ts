/**
 * A `mnemara snapshot create` killed (SIGKILL) while packing leaves a partial blob in `<store>/tmp` (366 MB in an
 * issue 10 trial, where doctor said nothing, recover left it and gc said "freed 0 B"). Through the real CLI:
 * doctor reports it (count, bytes, the command that frees it), recover removes it but never a live writer's temp
 * file, and `snapshot gc` removes another one and counts its bytes in what it freed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mnemara-killed-create-'));
const home = join(root, 'home');
const tmp = join(home, 'store', 'tmp');

afterAll(() => rmSync(root, { recursive: true, force: true }));

function cli(args: string[]) {
  const env = { MNEMARA_HOME: home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_MEMORY_EXTRACTOR: 'deterministic' };
  return execa(process.execPath, ['--import', 'tsx', CLI, ...args], { env, extendEnv: false, reject: false });
}

/** Starts `snapshot create` of ~48 MB of incompressible files and SIGKILLs it once its blob in tmp/ holds 1 MB. */
async function killMidCreate(lineage: string): Promise<string> {
  const src = join(root, `src-${lineage}`);
  mkdirSync(src, { recursive: true });
  for (let i = 0; i < 48; i++) writeFileSync(join(src, `f${i}.bin`), randomBytes(1024 * 1024));
  const child = cli(['snapshot', 'create', src, '--lineage', lineage]);
  const before = new Set(existsSync(tmp) ? readdirSync(tmp) : []);
  for (let i = 0; i < 3000; i++) {
    const partial = (existsSync(tmp) ? readdirSync(tmp) : []).find((n) => n.startsWith('blob-') && !before.has(n) && statSync(join(tmp, n), { throwIfNoEntry: false })?.size! > 1024 * 1024);
    if (partial) {
      child.kill('SIGKILL');
      await child;
      expect(existsSync(join(tmp, partial))).toBe(true);
      return partial;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill('SIGKILL');
  throw new Error(`snapshot create wrote no blob to tmp/: ${(await child).stderr}`);
}

describe('a snapshot create killed while packing', () => {
  it('doctor reports its partial blob, recover removes it and keeps a live writer\'s temp file', async () => {
    const partial = await killMidCreate('killed');
    // This test's own process is alive: a temp file named after it is a live writer's.
    const live = `blob-${process.pid}-0123456789ab`;
    writeFileSync(join(tmp, live), 'being written');
    const doctor = JSON.parse((await cli(['doctor', '--json'])).stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
    const check = doctor.checks.find((c) => c.name === 'store temp');
    expect(check?.ok).toBe(false);
    expect(check?.detail).toMatch(/^1 temp file\(s\) of snapshot writes whose process is gone, \d+(\.\d+)? MiB, in /);
    expect(check?.detail).toContain(partial);
    expect(check?.fix).toContain('mnemara recover');
    const r = await cli(['recover', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { tempFiles: { removed: string[]; bytes: number } };
    expect(out.tempFiles.removed).toEqual([`tmp/${partial}`]);
    expect(out.tempFiles.bytes).toBeGreaterThan(1024 * 1024);
    expect(readdirSync(tmp)).toEqual([live]);
    const again = JSON.parse((await cli(['doctor', '--json'])).stdout) as { checks: { name: string; ok: boolean }[] };
    expect(again.checks.find((c) => c.name === 'store temp')?.ok).toBe(true);
  }, 120_000);

  it('snapshot gc removes it too and counts its bytes in what it freed', async () => {
    const partial = await killMidCreate('killed-gc');
    const r = await cli(['snapshot', 'gc', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { removedTemp: string[]; freedBytes: number };
    expect(out.removedTemp).toContain(`tmp/${partial}`);
    expect(out.freedBytes).toBeGreaterThan(1024 * 1024);
    expect(existsSync(join(tmp, partial))).toBe(false);
  }, 120_000);
});
