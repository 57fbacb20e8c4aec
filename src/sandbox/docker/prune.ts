import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { assertEngine, dockerClient, statusOf } from './client.js';
import { removeContainer } from './remove.js';
import { detachOrphanDisks } from './workspace-disk.js';
import { pruneWorkspaceCache } from './workspace-cache.js';
import { LABEL } from './container-spec.js';

/** One sandbox container `pruneSandboxes` found. */
export interface PrunedContainer {
  id: string;
  name: string;
  session: string;
  /** Docker's state: running, exited, created … */
  state: string;
  /** `<hostname>:<pid>` of the process that started it ('' for containers from before the label existed). */
  process: string;
}

/** What `pruneSandboxes` removed (or would remove, with `dryRun`), and what it left alone. */
export interface PruneResult {
  containers: PrunedContainer[];
  volumes: string[];
  /** Sandboxes left alone because the process that started them still runs on this host (see `force`). */
  inUse: PrunedContainer[];
  /** Ids or names that could not be removed, with the engine's reason. */
  failed: { id: string; error: string }[];
  /** Workspace cache entries removed (`workspace-cache.ts`; all of them, unless `sessionId` or `dryRun`). */
  cacheEntries?: string[];
}

/**
 * Whether `<host>:<pid>` (the `mnemara.process` label) names a process that is alive on this machine. Another
 * machine's label, or none, counts as not alive here: callers that must not touch other machines' sandboxes
 * check the host themselves (`src/session/stranded.ts`).
 */
export function ownerAlive(owner: string): boolean {
  const sep = owner.lastIndexOf(':');
  const pid = Number(owner.slice(sep + 1));
  if (sep <= 0 || owner.slice(0, sep) !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes leftover sandboxes: every container labelled `mnemara=1` (running or not, with its anonymous volume)
 * whose starting process is gone, then any volume labelled `mnemara=1` left behind. A sandbox whose process still
 * runs on this host is in use and left alone unless `force`. `sessionId` limits it to one session; `dryRun` only
 * lists. Throws what dockerode throws when no engine answers.
 */
export async function pruneSandboxes(
  options: { docker?: Docker; sessionId?: string; dryRun?: boolean; force?: boolean } = {},
): Promise<PruneResult> {
  const docker = options.docker ?? dockerClient();
  // Without an engine, say so with the hint instead of dockerode's bare `connect ENOENT`.
  await assertEngine(docker);
  const label = [`${LABEL.owner}=1`, ...(options.sessionId ? [`${LABEL.session}=${options.sessionId}`] : [])];
  const result: PruneResult = { containers: [], volumes: [], inUse: [], failed: [] };
  const containers = await docker.listContainers({ all: true, filters: { label } });
  for (const c of containers) {
    const entry: PrunedContainer = {
      id: c.Id,
      name: (c.Names[0] ?? c.Id).replace(/^\//, ''),
      session: c.Labels[LABEL.session] ?? '',
      state: c.State,
      process: c.Labels[LABEL.process] ?? '',
    };
    if (!options.force && ownerAlive(entry.process)) {
      result.inUse.push(entry);
      continue;
    }
    if (!options.dryRun) {
      try {
        // A container another prune (or its own session's close) is removing counts as removed.
        await removeContainer(docker.getContainer(c.Id));
      } catch (err) {
        result.failed.push({ id: c.Id, error: (err as Error).message });
        continue;
      }
    }
    result.containers.push(entry);
    // Its anonymous volume goes with it (`v: true`).
    for (const m of c.Mounts ?? []) if (m.Type === 'volume' && m.Name) result.volumes.push(m.Name);
  }
  const { Volumes } = await docker.listVolumes({ filters: { label } });
  for (const v of Volumes ?? []) {
    const owner = v.Labels?.[LABEL.process] ?? '';
    if (result.volumes.includes(v.Name) || (!options.force && ownerAlive(owner))) continue;
    if (!options.dryRun) {
      try {
        await docker.getVolume(v.Name).remove();
      } catch (err) {
        // 409: still attached to a container (one in use); 404: already gone.
        if (statusOf(err) !== 404 && statusOf(err) !== 409) result.failed.push({ id: v.Name, error: (err as Error).message });
        continue;
      }
    }
    result.volumes.push(v.Name);
  }
  if (!options.dryRun) {
    const left = await docker.listContainers({ all: true, filters: { label: [`${LABEL.owner}=1`] } });
    await detachOrphanDisks(new Set(left.map((c) => (c.Names[0] ?? '').replace(/^\//, ''))));
    if (!options.sessionId) result.cacheEntries = await pruneWorkspaceCache({ all: true });
  }
  return result;
}
