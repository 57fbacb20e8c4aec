import type Docker from 'dockerode';
import { dockerClient, statusOf } from './client.js';
import { LABEL } from './container-spec.js';

/** What `pruneSandboxes` removed (or would remove, with `dryRun`). */
export interface PruneResult {
  containers: { id: string; name: string; session: string; state: string }[];
  volumes: string[];
  /** Ids or names that could not be removed, with the engine's reason. */
  failed: { id: string; error: string }[];
}

/**
 * Removes every container labelled `mnemara=1` (running or not, with its anonymous volume), then any volume
 * labelled `mnemara=1` left behind. `sessionId` limits it to one session; `dryRun` only lists.
 * Throws `SandboxError('DOCKER_UNAVAILABLE')` (from the engine call) when no engine answers.
 */
export async function pruneSandboxes(
  options: { docker?: Docker; sessionId?: string; dryRun?: boolean } = {},
): Promise<PruneResult> {
  const docker = options.docker ?? dockerClient();
  const label = [`${LABEL.owner}=1`, ...(options.sessionId ? [`${LABEL.session}=${options.sessionId}`] : [])];
  const result: PruneResult = { containers: [], volumes: [], failed: [] };
  const containers = await docker.listContainers({ all: true, filters: { label } });
  for (const c of containers) {
    const entry = {
      id: c.Id,
      name: (c.Names[0] ?? c.Id).replace(/^\//, ''),
      session: c.Labels[LABEL.session] ?? '',
      state: c.State,
    };
    if (!options.dryRun) {
      try {
        await docker.getContainer(c.Id).remove({ force: true, v: true });
      } catch (err) {
        if (statusOf(err) !== 404) {
          result.failed.push({ id: c.Id, error: (err as Error).message });
          continue;
        }
      }
    }
    result.containers.push(entry);
  }
  const { Volumes } = await docker.listVolumes({ filters: { label } });
  for (const v of Volumes ?? []) {
    if (!options.dryRun) {
      try {
        await docker.getVolume(v.Name).remove();
      } catch (err) {
        // In use by a container that is not mnemara's, or already gone: leave it.
        if (statusOf(err) !== 404) result.failed.push({ id: v.Name, error: (err as Error).message });
        continue;
      }
    }
    result.volumes.push(v.Name);
  }
  return result;
}
