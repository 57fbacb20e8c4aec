import type Docker from 'dockerode';
import { setTimeout as sleep } from 'node:timers/promises';
import { statusOf } from './client.js';

/** How long a removal someone else started may take before we call it stuck (ms). */
const IN_PROGRESS_WAIT_MS = 30_000;

/** Docker's 409 for a container that another caller is already removing. */
function removalInProgress(err: unknown): boolean {
  return statusOf(err) === 409 && /removal of container .* is already in progress|already in progress/i.test((err as Error).message ?? '');
}

/**
 * Removes a container and its anonymous volumes (force: a running one is killed), idempotently: a container
 * that is already gone (404) is success, and one another caller is already removing (409 "removal already in
 * progress": a concurrent `close()`, exit cleanup or `sandbox prune`) is success once it is gone (polled, up to
 * 30 s). Returns whether this call removed it. Throws the engine's error otherwise (or when the other removal
 * never finishes).
 */
export async function removeContainer(container: Docker.Container): Promise<boolean> {
  try {
    await container.remove({ force: true, v: true });
    return true;
  } catch (err) {
    if (statusOf(err) === 404) return false;
    if (!removalInProgress(err)) throw err;
    const deadline = Date.now() + IN_PROGRESS_WAIT_MS;
    for (let delay = 50; Date.now() < deadline; delay = Math.min(delay * 2, 1_000)) {
      const gone = await container.inspect().then(() => false, (e: unknown) => statusOf(e) === 404);
      if (gone) return false;
      await sleep(delay);
    }
    throw err;
  }
}
