import type Docker from 'dockerode';
import { basename } from 'node:path';
import { dockerClient } from './client.js';
import { LABEL } from './container-spec.js';
import { detachOrphanDisks, listOrphanDisks } from './workspace-disk.js';

/**
 * Detaches the loop devices of this home's sandboxes whose container is gone and removes their images: a session
 * killed before `close()` whose container someone else removed (`docker rm -f`, `docker system prune`, a test's
 * cleanup). Each such device keeps its deleted image's blocks: disk space that `du` cannot see and that nothing
 * else frees. Called by `recover` and at the start of every Docker session on the home (as dead scratch
 * directories are removed there), so a machine does not collect them run after run.
 *
 * The devices are listed before the containers: a sandbox starting meanwhile either still has its image (young:
 * spared by `DISK_START_GRACE_MS`) or already has its container, which the later listing sees, so no live
 * sandbox's device is taken. Returns the devices freed; `[]` when no engine answers or without losetup. Never throws.
 */
export async function detachGoneSandboxDisks(home: string, docker: Docker = dockerClient()): Promise<string[]> {
  const candidates = await listOrphanDisks(new Set(), home);
  if (candidates.length === 0) return [];
  const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.owner}=1`] } }).catch(() => null);
  if (!containers) return [];
  const live = new Set(containers.map((c) => (c.Names[0] ?? '').replace(/^\//, '')));
  const gone = new Set(candidates.map((d) => basename(d.backingFile).replace(/\.img$/, '')).filter((name) => !live.has(name)));
  return gone.size ? detachOrphanDisks(live, gone, home) : [];
}
