import { z } from 'zod';

/** Options of the sandbox (issue 2, docs/sandbox.md). Sizes in bytes, times in ms. */
export const SandboxConfigSchema = z.object({
  /** `docker` (hardened container) or `local` (a host temp dir; isolates nothing). */
  backend: z.enum(['docker', 'local']).default('docker'),
  /** Image reference; default the content-hashed tag that `scripts/setup.sh` builds. */
  image: z.string().min(1).optional(),
  /** Docker engine address (`tcp://HOST:2375`, `ssh://USER@HOST`, `unix:///…`); default `DOCKER_HOST`, else the local socket. */
  dockerHost: z.string().regex(/^(tcp|ssh|unix|https?):\/\//, 'a Docker host address: tcp://, ssh://, unix://, http(s)://').optional(),
  /** Docker network mode; `none` unless asked. */
  network: z.string().min(1).default('none'),
  /** Memory limit in bytes, swap included (Docker's minimum is 6 MiB). */
  memoryBytes: z.number().int().min(6 * 1024 ** 2).default(2 * 1024 ** 3),
  /** CPU limit in cores; capped at the engine's core count. */
  cpus: z.number().min(0.01).default(2),
  /** Process limit; a few are needed to run and to kill commands. */
  pidsLimit: z.number().int().min(16).default(512),
  /** Size of each tmpfs mount (/tmp and the sandbox user's home), bytes. */
  tmpBytes: z.number().int().min(1024 ** 2).default(512 * 1024 ** 2),
  /**
   * Quota on /workspace, bytes (a loop-mounted ext4 image; docs/sandbox.md "Workspace quota"); writing past it
   * fails with ENOSPC inside the sandbox. 0: no quota. Default 20 GiB, sized for real repositories.
   */
  maxWorkspaceBytes: z.number().int().refine((n) => n === 0 || n >= 16 * 1024 ** 2, 'must be 0 (no quota) or at least 16 MiB').default(20 * 1024 ** 3),
  /**
   * Cap on the cached workspace images (docs/session.md "Restore what is missing"), allocated bytes; 0: no
   * cache. A session from a snapshot keeps a copy of its restored /workspace (one per lineage) and the next
   * session on that lineage starts from a copy of it when the quota disk exists (root, a local engine).
   */
  workspaceCacheBytes: z.number().int().min(0).default(0),
  /** Default exec timeout, ms. */
  execTimeoutMs: z.number().int().positive().default(120_000),
  /** Default exec output cap per stream (head + tail kept), bytes. */
  maxOutputBytes: z.number().int().min(2).default(64 * 1024),
});
export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;
