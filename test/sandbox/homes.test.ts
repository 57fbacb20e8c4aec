/**
 * Several mnemara homes on one Docker engine (new-user trial of issue 10): each home's doctor, `sandbox prune`
 * and stranded-sandbox search see only that home's containers, volumes and workspace cache. A container without
 * the home label (made by an older mnemara) is listed as unowned and removed only with --include-unlabelled.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerCreateOptions, dockerClient, homeLabelValue, LABEL, sandboxImageTag, sandboxUserIds } from '../../src/sandbox/index.js';
import { findGoneSandboxes } from '../../src/session/stranded.js';
import { openStore } from '../../src/snapshot/index.js';
import { crashedSandbox, volumesOf } from './hold.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.ts');
const docker = dockerClient();
const tag = `homes-${process.pid}`;
let root: string;
let homeA: string;
let homeB: string;
let a: string;
let b: string;
let unlabelled: string;

const mnemara = (home: string, args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false, env: { MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'warn' } });
const exists = async (id: string) => docker.getContainer(id).inspect().then(() => true, () => false);
const nameOf = async (id: string) => (await docker.getContainer(id).inspect()).Name.replace(/^\//, '');

/** A cache entry directory as `workspace-cache.ts` lays them out; prune removes a home's entries, whatever they hold. */
function cacheEntry(home: string): string {
  const dir = join(home, 'workspace-cache', 'some+lineage', 'snap-0001');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'entry.json'), '{}');
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mnemara-homes-'));
  homeA = join(root, 'home-a');
  homeB = join(root, 'home-b');
  mkdirSync(homeA);
  mkdirSync(homeB);
  a = await crashedSandbox(`${tag}-a`, { MNEMARA_HOME: homeA });
  b = await crashedSandbox(`${tag}-b`, { MNEMARA_HOME: homeB });
  // What a mnemara from before the home label made: the same spec without the two home labels.
  const { uid, gid } = sandboxUserIds();
  const spec = containerCreateOptions({ image: await sandboxImageTag(), sessionId: `${tag}-old`, name: `mnemara-${tag}-old`, network: 'none', memoryBytes: 256 * 1024 ** 2, cpus: 1, pidsLimit: 64, tmpBytes: 16 * 1024 ** 2, uid, gid });
  for (const labels of [spec.Labels!, spec.HostConfig!.Mounts![0]!.VolumeOptions!.Labels!]) {
    delete labels[LABEL.home];
    delete labels[LABEL.homePath];
    // Its process on this host is gone: a pid above any pid_max.
    labels[LABEL.process] = `${hostname()}:99999999`;
  }
  unlabelled = (await docker.createContainer(spec)).id;
}, 180_000);

afterAll(async () => {
  for (const id of [a, b, unlabelled]) if (id) await execa('docker', ['rm', '-f', '-v', id], { reject: false });
  for (const s of ['a', 'b', 'old']) for (const v of await volumesOf(`${tag}-${s}`)) await execa('docker', ['volume', 'rm', v], { reject: false });
  rmSync(root, { recursive: true, force: true });
});

describe('two mnemara homes on one engine', () => {
  it('labels each container and its volume with a hash of its home and the home path', async () => {
    const info = await docker.getContainer(a).inspect();
    expect(info.Config.Labels[LABEL.home]).toBe(homeLabelValue(homeA));
    expect(info.Config.Labels[LABEL.homePath]).toBe(homeA);
    expect(homeLabelValue(homeA)).not.toBe(homeLabelValue(homeB));
    // The same home written another way is the same home.
    expect(homeLabelValue(`${homeA}/./`)).toBe(homeLabelValue(homeA));
    const volume = info.Mounts.find((m) => m.Destination === '/workspace')!;
    expect((await docker.getVolume(volume.Name!).inspect()).Labels[LABEL.home]).toBe(homeLabelValue(homeA));
  });

  it("the stranded-sandbox search of one home never lists the other's containers", async () => {
    const goneA = await findGoneSandboxes(await openStore(join(homeA, 'store')), homeA);
    const ids = goneA.map((g) => g.containerId);
    expect(ids).toContain(a);
    expect(ids).not.toContain(b);
    expect(goneA.find((g) => g.containerId === unlabelled)).toMatchObject({ unowned: true, stranded: false });
  });

  it("doctor in one home names its own leftover, not the other home's, and the unlabelled one apart", async () => {
    const r = await mnemara(homeA, ['doctor', '--json']);
    const check = (JSON.parse(r.stdout) as { checks: { name: string; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'sandboxes')!;
    expect(check.detail).toContain(await nameOf(a));
    expect(check.detail).not.toContain(await nameOf(b));
    expect(check.detail).toMatch(new RegExp(`without a home label[^;]*mnemara-${tag}-old`));
    expect(check.fix).toContain('--include-unlabelled');
  });

  it("sandbox prune in one home removes its leftover and cache, and leaves the other home's and the unlabelled one", async () => {
    const cacheA = cacheEntry(homeA);
    const cacheB = cacheEntry(homeB);
    const r = await mnemara(homeA, ['sandbox', 'prune', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { containers: { id: string }[]; unlabelled: { id: string }[]; otherHomes: number; cacheEntries: string[] };
    expect(out.containers.map((c) => c.id)).toEqual([a]);
    expect(out.unlabelled.map((c) => c.id)).toContain(unlabelled);
    expect(out.otherHomes).toBeGreaterThanOrEqual(1);
    expect(await exists(a)).toBe(false);
    expect(await exists(b)).toBe(true);
    expect(await exists(unlabelled)).toBe(true);
    expect(await volumesOf(`${tag}-b`)).toHaveLength(1);
    expect(await volumesOf(`${tag}-old`)).toHaveLength(1);
    expect(out.cacheEntries).toContain(cacheA);
    expect(existsSync(cacheA)).toBe(false);
    expect(existsSync(cacheB)).toBe(true);
  });

  it('removes an unlabelled container only when asked, and still never the other home\'s', async () => {
    // --session keeps this test to its own containers (other work on this engine has unlabelled ones too).
    const r = await mnemara(homeA, ['sandbox', 'prune', '--include-unlabelled', '--session', `${tag}-old`, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { containers: { id: string }[] }).containers.map((c) => c.id)).toEqual([unlabelled]);
    expect(await exists(unlabelled)).toBe(false);
    expect(await volumesOf(`${tag}-old`)).toEqual([]);
    const other = await mnemara(homeA, ['sandbox', 'prune', '--include-unlabelled', '--session', `${tag}-b`, '--json']);
    expect((JSON.parse(other.stdout) as { containers: unknown[]; otherHomes: number }).otherHomes).toBe(1);
    expect(await exists(b)).toBe(true);
    // Its own home prunes it.
    const own = await mnemara(homeB, ['sandbox', 'prune', '--session', `${tag}-b`, '--json']);
    expect((JSON.parse(own.stdout) as { containers: { id: string }[] }).containers.map((c) => c.id)).toEqual([b]);
  });
});
