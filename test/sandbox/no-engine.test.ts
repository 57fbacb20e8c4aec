import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { ENGINE_HINT, pruneSandboxes } from '../../src/sandbox/index.js';
import { EXIT } from '../../src/cli/output.js';
import { execa } from 'execa';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const NO_ENGINE = '/nonexistent/mnemara-no-docker.sock';

describe('without a Docker engine', () => {
  it('prune and list fail with DOCKER_UNAVAILABLE and the hint, not a bare connect error', async () => {
    const docker = new Docker({ socketPath: NO_ENGINE });
    for (const dryRun of [true, false]) {
      await expect(pruneSandboxes({ docker, dryRun })).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE', hint: ENGINE_HINT });
    }
  });

  it('the hint names an option that exists (sandbox.backend), and `mnemara sandbox list` prints it without a stack trace', async () => {
    expect(ENGINE_HINT).toContain('--set sandbox.backend=local');
    const r = await execa('node', ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'sandbox', 'list'], {
      reject: false,
      env: { DOCKER_HOST: `unix://${NO_ENGINE}` },
      cwd: ROOT,
    });
    expect(r.exitCode).toBe(EXIT.internal);
    expect(r.stderr).toContain('no Docker engine answers');
    expect(r.stderr).toContain('sandbox.backend=local');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});
