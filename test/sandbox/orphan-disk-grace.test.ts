/**
 * A session makes its workspace quota disk (`<home>/sandbox-disks/<name>.img` on a loop device) before its
 * container; a `sandbox prune` running in between took the disk for an orphan and detached it (new-user trial).
 * A disk whose image was written within DISK_START_GRACE_MS is left alone unless its sandbox is named (recover
 * removing that container); once its image is older, it is an orphan. Real loop devices (needs root, as CI has).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { DISK_START_GRACE_MS, detachOrphanDisks, listOrphanDisks } from '../../src/sandbox/docker/workspace-disk.js';

const attached: string[] = [];
const homes: string[] = [];
afterEach(async () => {
  for (const d of attached.splice(0)) await execa('losetup', ['--detach', d]).catch(() => undefined);
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

/** A home with one sandbox disk image attached to a loop device, as a starting session has it. */
async function startingDisk(name: string): Promise<{ home: string; image: string; device: string }> {
  const home = mkdtempSync(join(tmpdir(), 'mnemara-disks-'));
  homes.push(home);
  mkdirSync(join(home, 'sandbox-disks'));
  const image = join(home, 'sandbox-disks', `${name}.img`);
  writeFileSync(image, Buffer.alloc(1024 * 1024));
  const device = (await execa('losetup', ['--find', '--show', image])).stdout.trim();
  attached.push(device);
  return { home, image, device };
}

describe('sandbox disks of a starting session', () => {
  it('are not orphans to prune or doctor before their container exists', async () => {
    const { home, device } = await startingDisk('mnemara-starting-1');
    expect(await listOrphanDisks(new Set(), home)).toEqual([]);
    expect(await detachOrphanDisks(new Set(), undefined, home)).toEqual([]);
    const back = await execa('losetup', ['--list', '--noheadings', '--output', 'NAME', device]);
    expect(back.stdout.trim()).toBe(device);
  });

  it('are orphans once their image is older than the grace, or when their sandbox is named', async () => {
    const old = await startingDisk('mnemara-gone-1');
    const past = (Date.now() - DISK_START_GRACE_MS - 60_000) / 1000;
    utimesSync(old.image, past, past);
    expect((await listOrphanDisks(new Set(), old.home)).map((d) => d.device)).toEqual([old.device]);
    expect(await detachOrphanDisks(new Set(), undefined, old.home)).toEqual([old.device]);
    const named = await startingDisk('mnemara-removed-1');
    expect(await detachOrphanDisks(new Set(), new Set(['mnemara-removed-1']), named.home)).toEqual([named.device]);
  });

  // Trial 23 F18: a session killed between creating its image and attaching it left a 20 GiB sparse file that
  // doctor, recover and prune never saw (they listed only loop devices).
  it('an image no device backs is an orphan past the grace, and removed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mnemara-disks-'));
    homes.push(home);
    mkdirSync(join(home, 'sandbox-disks'));
    const young = join(home, 'sandbox-disks', 'mnemara-young-1.img');
    const old = join(home, 'sandbox-disks', 'mnemara-killed-1.img');
    writeFileSync(young, Buffer.alloc(4096));
    writeFileSync(old, Buffer.alloc(4096));
    const past = (Date.now() - DISK_START_GRACE_MS - 60_000) / 1000;
    utimesSync(old, past, past);
    expect(await listOrphanDisks(new Set(), home)).toEqual([{ device: null, backingFile: old }]);
    expect(await listOrphanDisks(new Set(['mnemara-killed-1']), home)).toEqual([]);
    expect(await detachOrphanDisks(new Set(), undefined, home)).toEqual([old]);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });

  // Re-trial of trial 23: a directory named `*.img` in sandbox-disks was reported freed by every prune and never
  // removed, and doctor warned about it for ever. Only regular files are images mnemara made; links are not followed.
  it('a directory or a link named *.img is not an image: never listed, never removed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mnemara-disks-'));
    homes.push(home);
    const disks = join(home, 'sandbox-disks');
    mkdirSync(join(disks, 'odd-dir.img'), { recursive: true });
    const target = join(home, 'precious.bin');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(disks, 'link.img'));
    const past = (Date.now() - DISK_START_GRACE_MS - 60_000) / 1000;
    for (const p of [join(disks, 'odd-dir.img'), target]) utimesSync(p, past, past);
    expect(await listOrphanDisks(new Set(), home)).toEqual([]);
    expect(await detachOrphanDisks(new Set(), undefined, home)).toEqual([]);
    expect(existsSync(join(disks, 'odd-dir.img'))).toBe(true);
    expect(existsSync(target)).toBe(true);
  });
});
