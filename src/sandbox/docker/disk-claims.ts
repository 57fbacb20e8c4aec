import { readFile, stat, statfs } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { execa } from 'execa';

/**
 * What the workspace disks of running sandboxes may still take from one host filesystem, bytes. A sandbox's
 * sparse image is unlinked once its container runs (`unlinkWorkspaceImage`), so a listing of `sandbox-disks/`
 * sees none of the running ones: two sessions at once each got a quota of 90 % of the free space, and together
 * could fill the host disk (issue 10 trial). The kernel still knows them as loop devices.
 */
export interface DiskClaims {
  /** Attached loop devices whose backing file is on the filesystem asked about (any mnemara home). */
  sandboxes: number;
  /** Their size less what their filesystem already uses (mounted), or less the blocks their image holds (not mounted), bytes. */
  bytes: number;
  /** Backing files counted (" (deleted)" cut), so a caller's own listing does not count them twice. */
  files: Set<string>;
}

/** `/dev/loopN` → where it is mounted, from `/proc/self/mounts` (the engine's local volume driver mounts it). */
async function loopMounts(): Promise<Map<string, string>> {
  const text = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [device, at] = line.split(' ');
    // Mount points escape spaces as \040 (proc(5)).
    if (device?.startsWith('/dev/loop') && at) out.set(device, at.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  }
  return out;
}

/**
 * Sums the claims of the loop devices whose backing file lives on the filesystem of `dir` (same `st_dev`). A
 * mounted one may still grow by its size less its used blocks (an upper bound: blocks freed inside stay allocated
 * in the sparse file); an unmounted one by its size less what its image holds, 0 when its image is gone (nothing
 * can write to it). Never throws: where `losetup` or `/sys` cannot be read, it finds nothing.
 */
export async function liveDiskClaims(dir: string): Promise<DiskClaims> {
  const claims: DiskClaims = { sandboxes: 0, bytes: 0, files: new Set() };
  const dev = (await stat(dir).catch(() => null))?.dev;
  if (dev === undefined) return claims;
  const listed = await execa('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE']).catch(() => null);
  if (!listed) return claims;
  const mounts = await loopMounts();
  for (const line of listed.stdout.split('\n')) {
    const m = /^(\S+)\s+(.*?)(?: \(deleted\))?$/.exec(line.trim());
    if (!m?.[2]) continue;
    const [device, file] = [m[1]!, m[2]];
    if ((await stat(dirname(file)).catch(() => null))?.dev !== dev) continue;
    const sectors = Number((await readFile(`/sys/block/${basename(device)}/size`, 'utf8').catch(() => '0')).trim());
    const size = sectors * 512;
    if (!size) continue;
    const at = mounts.get(device);
    let claim = 0;
    if (at) {
      const s = await statfs(at).catch(() => null);
      claim = s ? Math.max(0, size - (s.blocks - s.bfree) * s.bsize) : size;
    } else {
      const st = await stat(file).catch(() => null);
      claim = st ? Math.max(0, st.size - st.blocks * 512) : 0;
    }
    claims.sandboxes += 1;
    claims.bytes += claim;
    claims.files.add(file);
  }
  return claims;
}
