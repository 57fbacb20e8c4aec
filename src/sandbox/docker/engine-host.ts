import type { DockerOptions } from 'dockerode';
import { SandboxError } from '../errors.js';

/**
 * dockerode options for an engine address as Docker spells it (`DOCKER_HOST`, `docker -H`):
 * `unix:///path/docker.sock`, `tcp://host:port` (plain HTTP, port 2375 by default; with `DOCKER_TLS_VERIFY` set,
 * HTTPS with the client certificates in `DOCKER_CERT_PATH`, as the docker CLI does), `http(s)://host:port`, and
 * `ssh://[user@]host[:port]` (the engine's socket on that host, through ssh2 with the ssh agent).
 * Throws `SandboxError('INVALID_INPUT')` for anything else.
 */
export function engineOptions(host: string, env: NodeJS.ProcessEnv = process.env): DockerOptions {
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw invalid(host);
  }
  switch (url.protocol) {
    case 'unix:':
      return { socketPath: url.pathname };
    case 'tcp:':
    case 'http:':
    case 'https:': {
      const tls = url.protocol === 'https:' || (url.protocol === 'tcp:' && Boolean(env.DOCKER_TLS_VERIFY));
      return {
        host: url.hostname,
        port: Number(url.port || (tls ? 2376 : 2375)),
        protocol: tls ? 'https' : 'http',
      };
    }
    case 'ssh:':
      return {
        protocol: 'ssh',
        host: url.hostname,
        port: Number(url.port || 22),
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
        ...(env.SSH_AUTH_SOCK ? { sshOptions: { agent: env.SSH_AUTH_SOCK } } : {}),
      };
    default:
      throw invalid(host);
  }
}

function invalid(host: string): SandboxError {
  return new SandboxError('INVALID_INPUT', `cannot reach a Docker engine at ${JSON.stringify(host)}: not a Docker host address`, {
    hint: 'Use unix:///var/run/docker.sock, tcp://HOST:2375, or ssh://USER@HOST (sandbox.dockerHost or DOCKER_HOST).',
  });
}

/** The engine address a client talks to, for `doctor` and logs: the given host, else `DOCKER_HOST`, else the local socket. */
export function engineAddress(host?: string, env: NodeJS.ProcessEnv = process.env): string {
  return host ?? env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
}
