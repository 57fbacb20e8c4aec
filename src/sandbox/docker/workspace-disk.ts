import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, join, resolve } from 'node:path';
import { execa } from 'execa';
import { logger } from '../../config/logger.js';
import { mnemaraHome } from '../../config/paths.js';
import { quotaWarnings, workspaceQuotaThatFits } from './disk-room.js';

const log = logger('sandbox');

/** A loop-mounted ext4 image that becomes a sandbox's /workspace volume, so that its size is a hard quota. */
export interface WorkspaceDisk {
  /** The loop device (`/dev/loopN`) the volume mounts. */
  device: string;
  /** The sparse image file behind it. */
  imagePath: string;
  /** Size of the filesystem, bytes (the quota). */
  bytes: number;
  /** Whether the filesystem is a private copy of a cached image (`createWorkspaceDisk`'s `from`), not a new one. */
  copied: boolean;
}

/** Where a home's sparse workspace images live: `<home>/sandbox-disks` (default home: `mnemaraHome()`). */
export function sandboxDisksDir(home: string = mnemaraHome()): string {
  return join(resolve(home), 'sandbox-disks');
}

/**
 * Why not the alternatives (measured on this engine, overlay2 on ext4, docs/sandbox.md "Workspace quota"):
 * `--storage-opt size` needs overlay2 on xfs with pquota; a tmpfs volume holds the workspace in RAM; an xfs or
 * ext4 project quota needs the host filesystem remounted with it; a watchdog that polls `du` lets a 400 MB/s
 * writer overshoot by its poll interval. A sparse file holds no more than its size, so the host loses at most
 * the quota, whatever is written.
 *
 * Creates the sparse image (`<home>/sandbox-disks/<name>.img`, `home` default `mnemaraHome()`: the sandbox's own
 * home, `--home`/`config.home`, so that its prune and doctor find it), an ext4 filesystem on it owned by
 * uid:gid (no journal, no reserved blocks, no `lost+found`) and attaches it to a free loop device. Needs root
 * (loop devices) and e2fsprogs and losetup on the engine's host, which must be this machine. Returns `null`,
 * with a warning naming the cause, when any of that is missing: the sandbox then runs without a quota.
 */
export async function createWorkspaceDisk(name: string, asked: number, uid: number, gid: number, from?: string, home?: string): Promise<WorkspaceDisk | null> {
  const dir = sandboxDisksDir(home);
  const imagePath = join(dir, `${name}.img`);
  // A quota the filesystem cannot back loses the sandbox's writes silently: smaller, or refused (DISK_FULL).
  const fit = await mkdir(dir, { recursive: true })
    .then(() => workspaceQuotaThatFits(dir, asked))
    .catch((err: unknown) => {
      if ((err as { code?: string }).code === 'DISK_FULL') throw err;
      return { bytes: asked, reduced: false, free: 0, committed: 0, others: 0, room: 0, overcommitted: false }; // no room check possible: the disk step below says why
    });
  const bytes = fit.bytes;
  for (const text of quotaWarnings(fit, asked, dir)) log.warn({ askedBytes: asked, quotaBytes: bytes, committedBytes: fit.committed, freeBytes: fit.free, sandboxes: fit.others, dir }, text);
  try {
    if (process.getuid?.() !== 0) throw new Error('loop devices need root');
    if (process.env.DOCKER_HOST && !process.env.DOCKER_HOST.startsWith('unix://')) throw new Error(`the engine (${process.env.DOCKER_HOST}) is not on this machine`);
    await mkdir(dir, { recursive: true });
    const copied = from !== undefined && (await copyImage(from, imagePath, bytes));
    if (!copied) {
      const file = await open(imagePath, 'w', 0o600);
      await file.truncate(bytes);
      await file.close();
      await execa('mkfs.ext4', ['-q', '-F', '-m', '0', '-O', '^has_journal', '-E', `root_owner=${uid}:${gid},lazy_itable_init=1`, imagePath]);
      await execa('debugfs', ['-w', '-R', 'rmdir lost+found', imagePath]);
    }
    const { stdout } = await execa('losetup', ['--find', '--show', '--direct-io=on', imagePath]);
    return { device: stdout.trim(), imagePath, bytes, copied };
  } catch (err) {
    await rm(imagePath, { force: true }).catch(() => {});
    log.warn(
      { err: (err as Error).message.split('\n')[0], quotaBytes: bytes },
      'no workspace quota: /workspace can fill the host disk (run as root on the engine host with e2fsprogs and losetup, or set sandbox.maxWorkspaceBytes=0 to silence this)',
    );
    return null;
  }
}

/**
 * A private sparse copy of a cached image (`workspace-cache.ts`) at `dest` (never the cached file itself:
 * concurrent sandboxes each get their own). False, with a debug line, when it cannot be made or is not `bytes`
 * big (the caller then makes a new filesystem).
 */
async function copyImage(from: string, dest: string, bytes: number): Promise<boolean> {
  try {
    await execa('cp', ['--sparse=always', '--reflink=auto', '--', from, dest]);
    const size = (await stat(dest)).size;
    if (size !== bytes) throw new Error(`the cached image is ${size} bytes, the quota ${bytes}`);
    return true;
  } catch (err) {
    log.debug({ err: (err as Error).message.split('\n')[0], from }, 'no private copy of the cached workspace image; a new filesystem instead');
    await rm(dest, { force: true }).catch(() => {});
    return false;
  }
}

/**
 * Copies the mounted workspace filesystem's image to `dest` (sparse) while the filesystem is frozen
 * (`fsfreeze` on `mountpoint`, the volume's directory on this host), so the copy is the filesystem at one
 * instant, consistent on disk. The freeze is always lifted. Throws what cp or fsfreeze said.
 */
export async function copyFrozenImage(disk: WorkspaceDisk, mountpoint: string, dest: string): Promise<void> {
  await execa('fsfreeze', ['--freeze', mountpoint]);
  try {
    await execa('cp', ['--sparse=always', '--', disk.imagePath, dest]);
  } finally {
    await execa('fsfreeze', ['--unfreeze', mountpoint]).catch((err: unknown) => log.error({ err, mountpoint }, 'could not unfreeze the workspace filesystem'));
  }
}

/**
 * Once the container has started (the volume is mounted), unlinks the image: its blocks are freed when the loop
 * device is detached. The device stays attached for the sandbox's life: a stopped container's volume is mounted
 * again by device name (e.g. for the archive API), and a detached name could by then belong to another sandbox.
 * Never throws.
 */
export async function unlinkWorkspaceImage(disk: WorkspaceDisk): Promise<void> {
  await rm(disk.imagePath, { force: true }).catch((err: unknown) => log.debug({ err }, 'could not remove the workspace image'));
}

/** Detaches the loop device (after the container is removed) and removes the image if still there. Never throws. */
export async function releaseWorkspaceDisk(disk: WorkspaceDisk): Promise<void> {
  await execa('losetup', ['--detach', disk.device]).catch((err: unknown) => log.debug({ err }, 'losetup --detach failed'));
  await unlinkWorkspaceImage(disk);
}

/** `releaseWorkspaceDisk` for process exit, where nothing async runs. */
export function releaseWorkspaceDiskSync(disk: WorkspaceDisk): void {
  spawnSync('losetup', ['--detach', disk.device], { stdio: 'ignore', timeout: 10_000 });
  rmSync(disk.imagePath, { force: true });
}

/**
 * How long after its image was last written a disk named after no container is still taken for a starting
 * sandbox's (ms): a session makes its disk before its container, and a concurrent `sandbox prune` took it for an
 * orphan in between (new-user trial). A gone sandbox's image is no longer written, so it is an orphan after this.
 */
export const DISK_START_GRACE_MS = 5 * 60_000;

/**
 * The loop devices of sandboxes that are gone (their process was killed before `close()`): devices whose backing
 * file is in `<home>/sandbox-disks/` (default home `mnemaraHome()`; the directory as given or as the kernel names
 * it, symlinks resolved), named after no container in `live`, and whose image was not written in the last
 * `graceMs` (default DISK_START_GRACE_MS: a sandbox being created has its disk before its container); and, with
 * `device: null`, the images there that no device backs, under the same rules. `[]` without losetup.
 */
export async function listOrphanDisks(live: Set<string>, home?: string, graceMs = DISK_START_GRACE_MS): Promise<{ device: string | null; backingFile: string }[]> {
  const given = sandboxDisksDir(home);
  const dirs = [...new Set([given, await realpath(given).catch(() => given)])];
  const out = await execa('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE']).catch(() => null);
  const found: { device: string | null; backingFile: string }[] = [];
  const attached = new Set<string>();
  for (const line of out?.stdout.split('\n') ?? []) {
    const m = /^(\S+)\s+(.*?)(?: \(deleted\))?$/.exec(line.trim());
    const dir = m && dirs.find((d) => m[2]!.startsWith(`${d}/`));
    if (!m || !dir) continue;
    const name = m[2]!.slice(dir.length + 1).replace(/\.img$/, '');
    attached.add(name);
    if (live.has(name)) continue;
    const written = await stat(m[2]!).then((st) => st.mtimeMs, () => 0); // a deleted image: long unused
    if (Date.now() - written < graceMs) continue;
    found.push({ device: m[1]!, backingFile: m[2]! });
  }
  // An image no device backs: its session was killed between creating it and attaching it (trial 23 F18: a 20 GiB
  // sparse file that doctor, recover and prune never saw). Past the grace, as a sandbox starting has one a moment.
  if (out) {
    for (const file of (await readdir(given).catch(() => [] as string[])).filter((n) => n.endsWith('.img'))) {
      const name = file.replace(/\.img$/, '');
      if (attached.has(name) || live.has(name)) continue;
      // Only a regular file is an image mnemara made: a directory or link named `*.img` is someone else's, and was
      // "freed" by every prune while it stayed (re-trial of trial 23).
      const st = await lstat(join(given, file)).catch(() => null);
      if (st?.isFile() && Date.now() - st.mtimeMs >= graceMs) found.push({ device: null, backingFile: join(given, file) });
    }
  }
  return found;
}

/** What the kernel says backs `device` now (`/sys/block/loopN/loop/backing_file`, " (deleted)" cut), or null: detached. */
async function backingFileOf(device: string): Promise<string | null> {
  const text = await readFile(`/sys/block/${basename(device)}/loop/backing_file`, 'utf8').catch(() => null);
  return text === null ? null : text.trim().replace(/ \(deleted\)$/, '');
}

/** How long a detached device may stay bound while its last user (a lazily unmounted filesystem) lets go (ms). */
const RELEASE_WAIT_MS = 10_000;

/**
 * Detaches one orphan device and waits until the kernel has let it go, so that one prune leaves none behind.
 * A device still open (the engine unmounts volumes lazily) is only marked for autoclear by `losetup --detach`,
 * so it is asked again until it is free or `RELEASE_WAIT_MS` passes. Idempotent: a device already detached, or
 * bound by now to another file (another prune detached it and a new sandbox took the number), counts as done
 * and is never touched. Returns whether the device is free of `backingFile`.
 */
async function detachDevice(device: string, backingFile: string): Promise<boolean> {
  const ours = async () => (await backingFileOf(device)) === backingFile;
  const deadline = Date.now() + RELEASE_WAIT_MS;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    if (!(await ours())) return true;
    await execa('losetup', ['--detach', device]).catch((err: unknown) => log.debug({ err: (err as Error).message.split('\n')[0], device }, 'losetup --detach failed'));
    if (!(await ours())) return true;
    if (Date.now() >= deadline) return false;
    await sleep(delay);
  }
}

/**
 * Detaches the devices `listOrphanDisks` finds under `home` (only those of the sandboxes named in `only`, when
 * given, whatever their age; else those past DISK_START_GRACE_MS: a sandbox being created has its device before its container) and removes their images, in one call
 * (`detachDevice`); an image no device backs is only removed. Returns the devices freed (also those another caller
 * freed meanwhile) and the paths of the unattached images removed. Never throws.
 */
export async function detachOrphanDisks(live: Set<string>, only?: Set<string>, home?: string): Promise<string[]> {
  const detached: string[] = [];
  // Named sandboxes were just removed by the caller: their disks are orphans at once, however young.
  for (const d of await listOrphanDisks(live, home, only ? 0 : DISK_START_GRACE_MS)) {
    if (only && !only.has(basename(d.backingFile).replace(/\.img$/, ''))) continue;
    if (d.device === null) {
      // Never attached: only the file to remove.
      await rm(d.backingFile, { force: true }).catch(() => {});
      detached.push(d.backingFile);
      continue;
    }
    if (await detachDevice(d.device, d.backingFile)) detached.push(d.device);
    else log.warn({ device: d.device, backingFile: d.backingFile }, 'a workspace loop device is still in use after its sandbox was removed; the kernel frees it when its last user closes it');
    await rm(d.backingFile, { force: true }).catch(() => {});
  }
  if (detached.length) log.info({ devices: detached }, 'detached the workspace disks of sandboxes that are gone');
  return detached;
}
