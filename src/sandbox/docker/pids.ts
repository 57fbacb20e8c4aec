import { readFile } from 'node:fs/promises';

/**
 * Where a container's pids cgroup lives in the host's cgroup fs, per layout: cgroup v1 (cgroupfs driver), v2
 * (cgroupfs driver), v2 and v1 (systemd driver). Docker's default cgroup parent in each; a custom
 * `--cgroup-parent` or a remote engine finds none of them, and then the check is skipped.
 */
function candidates(id: string): string[] {
  return [
    `/sys/fs/cgroup/pids/docker/${id}`,
    `/sys/fs/cgroup/docker/${id}`,
    `/sys/fs/cgroup/system.slice/docker-${id}.scope`,
    `/sys/fs/cgroup/pids/system.slice/docker-${id}.scope`,
  ];
}

/** The directory found for each container id (null: none of the layouts; the engine is elsewhere). */
const found = new Map<string, string | null>();

/** How many process slots a container uses and may use, from its pids cgroup. */
export interface PidsUsage {
  /** Processes (tasks) in the container now. */
  current: number;
  /** The container's limit (`PidsLimit`). */
  max: number;
}

/**
 * The container's `pids.current` and `pids.max`, read from the host's cgroup fs (two small file reads: well
 * under a millisecond), or null when they cannot be read there (an engine on another host, a custom cgroup
 * parent, no limit). Never throws.
 */
export async function pidsUsage(containerId: string): Promise<PidsUsage | null> {
  const known = found.get(containerId);
  if (known === null) return null;
  for (const dir of known ? [known] : candidates(containerId)) {
    try {
      const [cur, max] = await Promise.all([readFile(`${dir}/pids.current`, 'utf8'), readFile(`${dir}/pids.max`, 'utf8')]);
      found.set(containerId, dir);
      const current = Number(cur.trim());
      const limit = Number(max.trim());
      // "max": no limit, so the table cannot fill.
      return Number.isFinite(current) && Number.isFinite(limit) ? { current, max: limit } : null;
    } catch {
      // the next layout
    }
  }
  // Not found once, not found later: a container's cgroup does not move while it runs.
  if (known === undefined) found.set(containerId, null);
  return null;
}

/**
 * Whether the process table is full or within an eighth of its limit: the same threshold as `pids_full` in
 * sandbox-image/bin/mnemara-kill, so that a reclaim the host asks for is one the reaper carries out.
 */
export function nearlyFull(u: PidsUsage): boolean {
  return u.current >= u.max - Math.floor(u.max / 8);
}

/** How often (ms) a running command's process table is looked at: two file reads each time. */
const WATCH_MS = 200;
/** After a reclaim, how long (ms) before the next may be asked for: each one stops and scans every process. */
const RECLAIM_GAP_MS = 2_000;

/**
 * While a command runs, looks at the container's process table every 200 ms and calls `onFull` when it is full
 * or nearly so (at most once per 2 s, never two at a time): a fork bomb started just before the command fills
 * the table after the command has started, and bash's fork retries (~26 s) succeed once the slots are free.
 * Returns the function that stops the watch. Does nothing when the host cannot read the cgroup fs.
 */
export function watchPids(containerId: string, onFull: (u: PidsUsage) => Promise<unknown>): () => void {
  let busy = false;
  let next = 0;
  const timer = setInterval(() => {
    if (busy || performance.now() < next) return;
    busy = true;
    void pidsUsage(containerId)
      .then(async (u) => {
        if (u === null) return stop();
        if (!nearlyFull(u)) return;
        await onFull(u);
        next = performance.now() + RECLAIM_GAP_MS;
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, WATCH_MS);
  timer.unref();
  const stop = (): void => clearInterval(timer);
  return stop;
}
