import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { assertEngine, dockerClient, statusOf } from './client.js';
import { removeContainer } from './remove.js';
import { detachOrphanDisks } from './workspace-disk.js';
import { pruneWorkspaceCache } from './workspace-cache.js';
import { LABEL } from './container-spec.js';
import { ownershipOf, type HomeOwnership } from './home-label.js';

/** One sandbox container `pruneSandboxes` found. */
export interface PrunedContainer {
  id: string;
  name: string;
  session: string;
  /** Docker's state: running, exited, created … */
  state: string;
  /** `<hostname>:<pid>` of the process that started it ('' for containers from before the label existed). */
  process: string;
  /** The resolved mnemara home that made it (`mnemara.home.path`; '' when it carries no home label). */
  home: string;
}

/** What `pruneSandboxes` removed (or would remove, with `dryRun`), and what it left alone. */
export interface PruneResult {
  containers: PrunedContainer[];
  volumes: string[];
  /** Sandboxes left alone because the process that started them still runs on this host (see `force`). */
  inUse: PrunedContainer[];
  /** Sandboxes left alone because they hold a killed session's unsaved work (`keep`; see `force`), with why. */
  stranded: (PrunedContainer & { why: string })[];
  /**
   * Containers without the home label (made by a mnemara older than it): they may belong to another home, so
   * they are only listed, unless `includeUnlabelled` (then they are removed like this home's and not listed here).
   */
  unlabelled: PrunedContainer[];
  /** How many containers of other mnemara homes on this engine were left alone (never touched, unless `allHomes`). */
  otherHomes: number;
  /** Ids or names that could not be removed, with the engine's reason. */
  failed: { id: string; error: string }[];
  /** Loop devices of this home's removed sandboxes that were detached (their quota images deleted). */
  disks?: string[];
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

/** Options of `pruneSandboxes`. */
export interface PruneOptions {
  docker?: Docker;
  /** Only the sandboxes of this session (rollout id). */
  sessionId?: string;
  dryRun?: boolean;
  /** Also sandboxes whose process still runs on this host, and those in `keep`. */
  force?: boolean;
  /**
   * Container ids → why, left alone unless `force`: the stranded sandboxes of killed sessions, whose /workspace is
   * the only copy of their work (`src/session/stranded.ts` finds them; `mnemara recover` rescues them).
   */
  keep?: ReadonlyMap<string, string>;
  /** The mnemara home whose sandboxes and workspace cache are pruned; default `mnemaraHome()`. */
  home?: string;
  /** Also remove containers and volumes without the home label (older mnemara versions; they may be another home's). */
  includeUnlabelled?: boolean;
  /** Every home's sandboxes on this engine, labelled or not (implies `includeUnlabelled`). */
  allHomes?: boolean;
}

/**
 * Removes leftover sandboxes of one mnemara home (`home-label.ts`): every container labelled `mnemara=1` and
 * this home's `mnemara.home` (running or not, with its anonymous volume) whose starting process is gone, then
 * any such volume left behind, then (without `sessionId`) this home's workspace cache. Other homes' sandboxes
 * are never touched (unless `allHomes`); unlabelled ones (older versions) are listed in `unlabelled` and removed
 * only with `includeUnlabelled`. A sandbox whose process still runs on this host is in use and left alone unless
 * `force`, and so is one in `keep` (a stranded sandbox holding unsaved work). `dryRun` only lists. Throws what dockerode throws when no engine answers.
 */
export async function pruneSandboxes(options: PruneOptions = {}): Promise<PruneResult> {
  const docker = options.docker ?? dockerClient();
  // Without an engine, say so with the hint instead of dockerode's bare `connect ENOENT`.
  await assertEngine(docker);
  const label = [`${LABEL.owner}=1`, ...(options.sessionId ? [`${LABEL.session}=${options.sessionId}`] : [])];
  const result: PruneResult = { containers: [], volumes: [], inUse: [], stranded: [], unlabelled: [], otherHomes: 0, failed: [] };
  const scope = (labels: Record<string, string> | undefined): HomeOwnership | 'take' => {
    const whose = ownershipOf(labels, options.home);
    if (whose === 'own' || options.allHomes || (whose === 'unlabelled' && options.includeUnlabelled)) return 'take';
    return whose;
  };
  const containers = await docker.listContainers({ all: true, filters: { label } });
  for (const c of containers) {
    const entry: PrunedContainer = {
      id: c.Id,
      name: (c.Names[0] ?? c.Id).replace(/^\//, ''),
      session: c.Labels[LABEL.session] ?? '',
      state: c.State,
      process: c.Labels[LABEL.process] ?? '',
      home: c.Labels[LABEL.homePath] ?? '',
    };
    const whose = scope(c.Labels);
    if (whose === 'other') {
      result.otherHomes += 1;
      continue;
    }
    if (whose === 'unlabelled') {
      result.unlabelled.push(entry);
      continue;
    }
    if (!options.force && ownerAlive(entry.process)) {
      result.inUse.push(entry);
      continue;
    }
    const why = options.force ? undefined : options.keep?.get(c.Id);
    if (why !== undefined) {
      result.stranded.push({ ...entry, why });
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
    if (scope(v.Labels ?? undefined) !== 'take') continue;
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
    result.disks = await detachOrphanDisks(new Set(left.map((c) => (c.Names[0] ?? '').replace(/^\//, ''))), undefined, options.home);
    // The cache lives under the home, so this removes this home's entries only.
    if (!options.sessionId) result.cacheEntries = await pruneWorkspaceCache({ all: true, ...(options.home ? { home: options.home } : {}) });
  }
  return result;
}
