/**
 * Issue 10, round 6 findings: `sandbox prune --force` left the loop device of a removed sandbox's quota disk
 * attached until a second run, and a home's disk paths ignored `--home` (the images went under MNEMARA_HOME,
 * where `prune --home` and `doctor --home` never looked). One prune of the sandbox's own home frees every
 * device, also when two prunes race; a third finds nothing and still exits 0. The home is reached through a
 * symlink and has spaces and non-ASCII in its name, as users' homes do. `recover --dry-run` lists such sandboxes
 * (no session record names them) with what removes them. Real Docker and loop devices.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashedSandbox, volumesOf } from './hold.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.ts');
const tag = `prune-disks-${process.pid}`;
let root: string;
let decoy: string;
let link: string;
let real: string;
const ids: string[] = [];

/** `mnemara …` with MNEMARA_HOME pointing at the decoy: only `--home` names the sandboxes' home. */
const mnemara = (args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false, env: { MNEMARA_HOME: decoy, MNEMARA_LOG_LEVEL: 'warn' } });

/** Loop devices whose backing file is under `dir` (any spelling of it the kernel prints). */
async function devicesUnder(...dirs: string[]): Promise<string[]> {
  const { stdout } = await execa('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE']);
  return stdout.split('\n').filter((l) => dirs.some((d) => l.includes(`${d}/`))).map((l) => l.trim().split(/\s+/)[0]!);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mnemara-prune-disks-'));
  decoy = join(root, 'decoy home');
  real = join(root, 'Projekte für Kunden', 'mnemara home');
  link = join(root, 'home link');
  mkdirSync(decoy);
  mkdirSync(real, { recursive: true });
  symlinkSync(real, link);
  for (const s of ['one', 'two']) ids.push(await crashedSandbox(`${tag}-${s}`, { MNEMARA_HOME: decoy }, link));
}, 180_000);

afterAll(async () => {
  for (const id of ids) await execa('docker', ['rm', '-f', '-v', id], { reject: false });
  for (const s of ['one', 'two']) for (const v of await volumesOf(`${tag}-${s}`)) await execa('docker', ['volume', 'rm', v], { reject: false });
  for (const d of await devicesUnder(root)) await execa('losetup', ['--detach', d], { reject: false });
  rmSync(root, { recursive: true, force: true });
});

describe('sandbox prune frees the quota disks of its own home in one run', () => {
  it('puts the quota images under the sandbox home (--home), not MNEMARA_HOME', async () => {
    expect(await devicesUnder(real, link)).toHaveLength(2);
    expect(await devicesUnder(decoy)).toEqual([]);
    const doctor = await mnemara(['doctor', '--home', link, '--json']);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; detail: string }[] }).checks;
    expect(checks.find((c) => c.name === 'sandboxes')?.detail).toContain('leftover container(s)');
  }, 120_000);

  it('recover --dry-run lists them: their processes are gone and no session record names them (round 6 finding)', async () => {
    const r = await mnemara(['recover', '--dry-run', '--home', link, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { stranded: unknown[]; unowned: { containerId: string; rolloutId: string; fix: string }[] };
    expect(out.stranded).toEqual([]);
    const ours = out.unowned.filter((u) => ids.includes(u.containerId));
    expect(ours).toHaveLength(2);
    for (const u of ours) expect(u.fix).toBe('`mnemara sandbox prune` removes it');
    // Containers without a home label on this shared engine (older versions) are listed too, with their own fix.
    for (const u of out.unowned.filter((x) => !ids.includes(x.containerId))) expect(u.fix).toContain('--include-unlabelled');
    const text = await mnemara(['recover', '--dry-run', '--home', link]);
    expect(text.stdout).toContain(`rollout ${tag}-one: its process is gone and no session record names it`);
    expect(text.stdout).not.toContain('nothing orphaned');
  }, 120_000);

  it('two racing `prune --force --home` runs detach every device at once; a third is a no-op', async () => {
    const before = await devicesUnder(real, link);
    const [a, b] = await Promise.all([mnemara(['sandbox', 'prune', '--force', '--home', link, '--json']), mnemara(['sandbox', 'prune', '--force', '--home', link, '--json'])]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const ra = JSON.parse(a.stdout) as { containers: { id: string }[]; disks: string[]; failed: unknown[] };
    const rb = JSON.parse(b.stdout) as typeof ra;
    expect(new Set([...ra.containers, ...rb.containers].map((c) => c.id))).toEqual(new Set(ids));
    expect(new Set([...ra.disks, ...rb.disks])).toEqual(new Set(before));
    // Right after the one run: nothing left to a second.
    expect(await devicesUnder(real, link, decoy)).toEqual([]);
    const again = await mnemara(['sandbox', 'prune', '--force', '--home', link, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ containers: [], disks: [], failed: [] });
  }, 180_000);
});
