import Docker from 'dockerode';
import { SandboxError } from '../errors.js';
import { engineOptions } from './engine-host.js';

let shared: Docker | undefined;
const byHost = new Map<string, Docker>();

/**
 * The process-wide dockerode client: for `host` (`sandbox.dockerHost`: `tcp://…`, `ssh://…`, `unix://…`; see
 * `engineOptions`) when given, else from `DOCKER_HOST` (dockerode reads it, with `DOCKER_TLS_VERIFY` and
 * `DOCKER_CERT_PATH`), else the local socket. The sandbox talks to the engine only through its API (archives, no
 * bind mounts), so a remote engine works the same. Throws `SandboxError('INVALID_INPUT')` for a bad `host`.
 */
export function dockerClient(host?: string): Docker {
  if (host === undefined) {
    shared ??= new Docker();
    return shared;
  }
  let d = byHost.get(host);
  if (!d) {
    d = new Docker(engineOptions(host));
    byHost.set(host, d);
  }
  return d;
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
