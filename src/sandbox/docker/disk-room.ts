import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes } from '../../config/bytes.js';
import { MnemaraError } from '../../config/errors.js';
import { liveDiskClaims } from './disk-claims.js';

/** The smallest workspace quota worth starting a sandbox with, bytes (32 MiB: a small home still runs a small repository). */
export const MIN_WORKSPACE_QUOTA_BYTES = 32 * 1024 ** 2;

/**
 * The share of the free space a workspace may fill: its snapshot (a change layer up to the size of what was
 * written, in the store on the same disk as a rule) needs as much again, and 10 % of the rest is slack.
 */
export const ROOM_SHARE = 0.45;

/** What `workspaceQuotaThatFits` found: the quota to use and why. */
export interface QuotaFit {
  /** The quota to give the workspace image, bytes (≤ the one asked for; whole MiB when reduced). */
  bytes: number;
  /** True when it is below the one asked for (`sandbox.maxWorkspaceBytes`). */
  reduced: boolean;
  /** Free bytes on the filesystem of `dir` (for the unprivileged user). */
  free: number;
  /**
   * Bytes the workspace disks already on this filesystem may still claim as their sandboxes write: running
   * sandboxes' loop devices (`liveDiskClaims`, any home) and images in `dir` not attached (size − allocated).
   */
  committed: number;
  /** Running sandboxes whose disks are on this filesystem. */
  others: number;
  /** The room workspace disks may take: ROOM_SHARE of `free`, whole MiB (the rest is kept for the store and the host). */
  room: number;
  /**
   * True when this quota plus `committed` is more than `free`: if every sandbox filled its workspace the filesystem
   * itself would be full, and no snapshot of the work could be written. The quota is kept (a warning names it), see
   * the function. Compared with `free`, not with the room: at 45 % any two sessions at the default 20 GiB on a disk
   * with 80 GiB free were warned about (trial 22 F9), though sparse images rarely fill.
   */
  overcommitted: boolean;
}

/**
 * The workspace quota that the filesystem holding the sparse images (`dir`, `$MNEMARA_HOME/sandbox-disks`) can
 * really back (issue 10: a 20 GiB image on a small filesystem made the container's ext4 lose writes silently,
 * dmesg "lost async page write"). ROOM_SHARE of the free space is the room, so that a run that fills its workspace
 * still leaves space for that workspace's snapshot (issue 10, eleventh trial: at 90 % a full workspace left none and
 * `recover` failed with ENOSPC); the quota is the one asked for when it fits, else that room (reduced).
 * Throws `MnemaraError('DISK_FULL')` (exit 3) when the room is below `MIN_WORKSPACE_QUOTA_BYTES`, naming the
 * filesystem, `sandbox-disks` and what to do. Units: bytes.
 */
export async function workspaceQuotaThatFits(dir: string, bytes: number): Promise<QuotaFit> {
  const s = await statfs(dir);
  const free = s.bavail * s.bsize;
  const live = await liveDiskClaims(dir);
  let committed = live.bytes;
  for (const name of (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.img'))) {
    if (live.files.has(join(dir, name))) continue;
    const st = await lstat(join(dir, name)).catch(() => null);
    if (st?.isFile()) committed += Math.max(0, st.size - st.blocks * 512);
  }
  // Other sandboxes' claims do not shrink this quota: each rarely fills its quota, and counting them would shrink
  // every concurrent run's quota on a shared host (8 sessions at 20 GiB on 78 GiB free: the fifth refused). They
  // are reported (`overcommitted`, a warning, when they could fill the filesystem) and named in a refusal, as what
  // to clear.
  const room = Math.floor((free * ROOM_SHARE) / 1024 ** 2) * 1024 ** 2;
  const others = live.sandboxes;
  if (bytes <= room) return { bytes, reduced: false, free, committed, others, room, overcommitted: bytes + committed > free };
  const mib = (n: number): string => `${Math.max(0, Math.round(n / 1024 ** 2))} MiB`;
  if (room < MIN_WORKSPACE_QUOTA_BYTES) {
    throw new MnemaraError(
      'DISK_FULL',
      `not enough free space for the sandbox's workspace disk in ${dir}: ${mib(free)} free (the workspace images already there may still claim ${mib(committed)}); a sandbox needs at least ${mib(MIN_WORKSPACE_QUOTA_BYTES / ROOM_SHARE)}`,
      {
        hint: `Free space on that filesystem (\`mnemara recover\` first saves the work of killed sessions' sandboxes, then \`mnemara sandbox prune\` removes the leftover images in ${dir}), or point MNEMARA_HOME at a larger filesystem.`,
      },
    );
  }
  return { bytes: room, reduced: true, free, committed, others, room, overcommitted: room + committed > free };
}

/**
 * What a sandbox says about its quota `fit` (asked `asked` bytes, images in `dir`): that it was reduced, and that
 * the disks on that filesystem may take more than it has free. Sizes in the unit that suits them (a small disk's
 * are MiB, not "0.0 GiB"). Pure.
 */
export function quotaWarnings(fit: QuotaFit, asked: number, dir: string): string[] {
  const out: string[] = [];
  if (fit.reduced) {
    out.push(`workspace quota reduced to ${formatBytes(fit.bytes)} (asked ${formatBytes(asked)}): the filesystem of ${dir} has too little free space for sandbox.maxWorkspaceBytes`);
  }
  if (fit.overcommitted) {
    out.push(
      // The other images need not be running (thirteenth trial): they may be of sandboxes starting or left behind.
      `the workspace disks on the filesystem of ${dir} could fill it: this sandbox's ${formatBytes(fit.bytes)} quota plus ${formatBytes(fit.committed)} that the other workspace images may still write (${fit.others} of running sandboxes; the rest of sandboxes still starting or left by killed sessions) is more than the ${formatBytes(fit.free)} free, and a full filesystem leaves no room for the snapshots of their work. Lower sandbox.maxWorkspaceBytes, run fewer sessions at once, or \`mnemara recover\` then \`mnemara sandbox prune\` to clear images of killed sessions`,
    );
  }
  return out;
}
