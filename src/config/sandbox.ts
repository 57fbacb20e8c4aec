import { z } from 'zod';

/** Options of the sandbox (issue 2). Sizes in bytes, times in ms. */
export const SandboxConfigSchema = z.object({
  backend: z.enum(['docker', 'local']).default('docker'),
  /** Image reference; default the content-hashed tag that `scripts/setup.sh` builds. */
  image: z.string().optional(),
  /** Docker network mode; `none` unless asked. */
  network: z.string().default('none'),
  memoryBytes: z.number().int().positive().default(2 * 1024 ** 3),
  cpus: z.number().positive().default(2),
  pidsLimit: z.number().int().positive().default(512),
  /** Size of each tmpfs mount (/tmp and the sandbox user's home). */
  tmpBytes: z.number().int().positive().default(512 * 1024 ** 2),
  execTimeoutMs: z.number().int().positive().default(120_000),
  maxOutputBytes: z.number().int().positive().default(64 * 1024),
});
export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;
