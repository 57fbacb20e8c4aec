/**
 * The sandbox module: where commands and files of a session go (DESIGN.md, "sandbox").
 * `createSandbox` picks a backend; `DockerSandbox` is the real, hardened one; `LocalSandbox` isolates nothing.
 */
import type { OnProgress } from '../config/progress.js';
import type { Sandbox } from './types.js';
import { DockerSandbox, type DockerSandboxOptions } from './docker/docker-sandbox.js';
import { LocalSandbox } from './local/local-sandbox.js';

export type { Sandbox, ExecOptions, ExecResult } from './types.js';
export { SandboxError, type SandboxErrorCode } from './errors.js';
export { DockerSandbox, type DockerSandboxOptions } from './docker/docker-sandbox.js';
export { LocalSandbox, type LocalSandboxOptions } from './local/local-sandbox.js';
export { sandboxImageTag, sandboxUserIds, SANDBOX_IMAGE_REPO } from './image-tag.js';
export { closeAllSandboxes, keepAllSandboxes, keepSandbox, openSandboxCount } from './registry.js';
export { pruneSandboxes, type PruneOptions, type PruneResult } from './docker/prune.js';
export { homeLabelValue, ownershipOf, type HomeOwnership } from './docker/home-label.js';
export { assertEngine, dockerClient, ENGINE_HINT } from './docker/client.js';
export { sandboxImageStatus, type SandboxImageStatus } from './docker/image-status.js';
export { LABEL, WORKSPACE_DIR, containerCreateOptions } from './docker/container-spec.js';

/**
 * Options of `createSandbox`: the Docker sandbox's options (limits default to `SandboxConfigSchema` in
 * src/config/sandbox.ts; sizes in bytes, times in ms; `image`, `network` and the limits apply to Docker only),
 * the backend, and a sink for `sandbox-start` progress.
 */
export type CreateSandboxOptions = Omit<DockerSandboxOptions, 'docker'> & {
  backend: 'docker' | 'local';
  onProgress?: OnProgress;
};

/**
 * Starts a sandbox of the chosen backend and registers it for removal at exit. Call `close()` when done.
 * Throws `SandboxError`: `DOCKER_UNAVAILABLE`, `IMAGE_MISSING` (hint: `npm run setup`) or `SANDBOX_FAILED`.
 */
export async function createSandbox(options: CreateSandboxOptions): Promise<Sandbox> {
  const { onProgress } = options;
  const started = Date.now();
  onProgress?.({ step: 'sandbox-start', phase: 'start', message: options.backend });
  const sandbox: Sandbox =
    options.backend === 'local'
      ? await LocalSandbox.create({
          sessionId: options.sessionId,
          ...(options.execTimeoutMs === undefined ? {} : { timeoutMs: options.execTimeoutMs }),
          ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
        })
      : await DockerSandbox.create(options);
  onProgress?.({ step: 'sandbox-start', phase: 'end', message: sandbox.id.slice(0, 12), elapsedMs: Date.now() - started });
  return sandbox;
}
