import Docker from 'dockerode';
import { SandboxError } from '../errors.js';

let shared: Docker | undefined;

/** The process-wide dockerode client (from `DOCKER_HOST` etc., else the local socket). */
export function dockerClient(): Docker {
  shared ??= new Docker();
  return shared;
}

/** Hint printed when no Docker engine answers. */
export const ENGINE_HINT =
  'start a Docker engine (run `npm run setup`, which installs and starts one on Debian), or run without isolation on the ' +
  'local backend: --set sandbox.backend=local (or MNEMARA_SANDBOX_BACKEND=local)';

/**
 * Pings the engine; resolves with its version, or throws `SandboxError('DOCKER_UNAVAILABLE')` saying why.
 * @param timeoutMs how long to wait for an answer, in ms.
 */
export async function assertEngine(docker: Docker = dockerClient(), timeoutMs = 5_000): Promise<string> {
  try {
    const version = await Promise.race([
      docker.version(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
      ),
    ]);
    return version.Version;
  } catch (err) {
    throw new SandboxError('DOCKER_UNAVAILABLE', `no Docker engine answers: ${(err as Error).message}`, {
      hint: ENGINE_HINT,
      cause: err,
    });
  }
}

/** HTTP status of a dockerode error, when it has one. */
export function statusOf(err: unknown): number | undefined {
  const code = (err as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}
