import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { logger } from '../../config/logger.js';
import { mnemaraHome } from '../../config/paths.js';
import { workspaceQuotaThatFits } from './disk-room.js';

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

/**
 * Why not the alternatives (measured on this engine, overlay2 on ext4, docs/sandbox.md "Workspace quota"):
 * `--storage-opt size` needs overlay2 on xfs with pquota; a tmpfs volume holds the workspace in RAM; an xfs or
 * ext4 project quota needs the host filesystem remounted with it; a watchdog that polls `du` lets a 400 MB/s
 * writer overshoot by its poll interval. A sparse file holds no more than its size, so the host loses at most
 * the quota, whatever is written.
 *
 * Creates the sparse image (`$MNEMARA_HOME/sandbox-disks/<name>.img`), an ext4 filesystem on it owned by
 * uid:gid (no journal, no reserved blocks, no `lost+found`) and attaches it to a free loop device. Needs root
 * (loop devices) and e2fsprogs and losetup on the engine's host, which must be this machine. Returns `null`,
 * with a warning naming the cause, when any of that is missing: the sandbox then runs without a quota.
 */
export async function createWorkspaceDisk(name: string, asked: number, uid: number, gid: number, from?: string): Promise<WorkspaceDisk | null> {
  const dir = join(mnemaraHome(), 'sandbox-disks');
  const imagePath = join(dir, `${name}.img`);
  // A quota the filesystem cannot back loses the sandbox's writes silently: smaller, or refused (DISK_FULL).
  const fit = await mkdir(dir, { recursive: true })
    .then(() => workspaceQuotaThatFits(dir, asked))
    .catch((err: unknown) => {
      if ((err as { code?: string }).code === 'DISK_FULL') throw err;
      return { bytes: asked, reduced: false, free: 0 }; // no room check possible: the disk step below says why
    });
  const bytes = fit.bytes;
  if (fit.reduced) {
    log.warn({ askedBytes: asked, quotaBytes: bytes, freeBytes: fit.free, dir }, `workspace quota reduced to ${Math.round(bytes / 1024 ** 2)} MiB: the filesystem of ${dir} has too little free space for sandbox.maxWorkspaceBytes`);
  }
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
 * The loop devices of sandboxes that are gone (their process was killed before `close()`): devices whose backing
 * file is in `$MNEMARA_HOME/sandbox-disks/` and named after no container in `live`. `[]` without losetup.
 */
export async function listOrphanDisks(live: Set<string>): Promise<{ device: string; backingFile: string }[]> {
  const dir = join(mnemaraHome(), 'sandbox-disks');
  const out = await execa('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE']).catch(() => null);
  const found: { device: string; backingFile: string }[] = [];
  for (const line of out?.stdout.split('\n') ?? []) {
    const m = /^(\S+)\s+(.*?)(?: \(deleted\))?$/.exec(line.trim());
    if (!m || !m[2]!.startsWith(`${dir}/`)) continue;
    const name = m[2]!.slice(dir.length + 1).replace(/\.img$/, '');
    if (!live.has(name)) found.push({ device: m[1]!, backingFile: m[2]! });
  }
  return found;
}

/**
 * Detaches the devices `listOrphanDisks` finds (only those of the sandboxes named in `only`, when given: a
 * sandbox being created has its device before its container) and removes their images. Returns the devices
 * detached. Never throws.
 */
export async function detachOrphanDisks(live: Set<string>, only?: Set<string>): Promise<string[]> {
  const detached: string[] = [];
  for (const d of await listOrphanDisks(live)) {
    if (only && !only.has(basename(d.backingFile).replace(/\.img$/, ''))) continue;
    await execa('losetup', ['--detach', d.device]).then(() => detached.push(d.device), () => {});
    await rm(d.backingFile, { force: true }).catch(() => {});
  }
  if (detached.length) log.info({ devices: detached }, 'detached the workspace disks of sandboxes that are gone');
  return detached;
}
