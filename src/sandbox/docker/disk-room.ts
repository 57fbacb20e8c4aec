import { readdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';

/** The smallest workspace quota worth starting a sandbox with, bytes (32 MiB: a small home still runs a small repository). */
export const MIN_WORKSPACE_QUOTA_BYTES = 32 * 1024 ** 2;

/** What `workspaceQuotaThatFits` found: the quota to use and why. */
export interface QuotaFit {
  /** The quota to give the workspace image, bytes (≤ the one asked for; whole MiB when reduced). */
  bytes: number;
  /** True when it is below the one asked for (`sandbox.maxWorkspaceBytes`). */
  reduced: boolean;
  /** Free bytes on the filesystem of `dir` (for the unprivileged user). */
  free: number;
  /** Bytes the sparse images already in `dir` may still claim as their sandboxes write (size − allocated). */
  committed: number;
}

/**
 * The workspace quota that the filesystem holding the sparse images (`dir`, `$MNEMARA_HOME/sandbox-disks`) can
 * really back (issue 10: a 20 GiB image on a small filesystem made the container's ext4 lose writes silently,
 * dmesg "lost async page write"). 90 % of the free space (10 % is left for the run's snapshots) is the room; the
 * quota is the one asked for when it fits, else that room (reduced).
 * Throws `MnemaraError('DISK_FULL')` (exit 3) when the room is below `MIN_WORKSPACE_QUOTA_BYTES`, naming the
 * filesystem, `sandbox-disks` and what to do. Units: bytes.
 */
export async function workspaceQuotaThatFits(dir: string, bytes: number): Promise<QuotaFit> {
  const s = await statfs(dir);
  const free = s.bavail * s.bsize;
  let committed = 0;
  for (const name of (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.img'))) {
    const st = await stat(join(dir, name)).catch(() => null);
    if (st) committed += Math.max(0, st.size - st.blocks * 512);
  }
  // Other sandboxes' images are not subtracted: each rarely fills its quota, and counting them would shrink every
  // concurrent run's quota on a shared host. They are named in the refusal, as what to clear.
  const room = Math.floor((free * 0.9) / 1024 ** 2) * 1024 ** 2;
  if (bytes <= room) return { bytes, reduced: false, free, committed };
  const mib = (n: number): string => `${Math.max(0, Math.round(n / 1024 ** 2))} MiB`;
  if (room < MIN_WORKSPACE_QUOTA_BYTES) {
    throw new MnemaraError(
      'DISK_FULL',
      `not enough free space for the sandbox's workspace disk in ${dir}: ${mib(free)} free (the workspace images already there may still claim ${mib(committed)}); a sandbox needs at least ${mib(MIN_WORKSPACE_QUOTA_BYTES / 0.9)}`,
      {
        hint: `Free space on that filesystem, remove leftover images (\`mnemara sandbox prune --force\` clears ${dir}), or point MNEMARA_HOME at a larger filesystem.`,
      },
    );
  }
  return { bytes: room, reduced: true, free, committed };
}
