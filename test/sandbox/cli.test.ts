import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { dockerClient } from '../../src/sandbox/index.js';
import { crashedSandbox } from './hold.js';

const docker = dockerClient();

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.ts');
const mnemara = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false, env });

describe('mnemara doctor and sandbox prune', () => {
  it('doctor passes here, and warns (without failing) when no model access is configured', async () => {
    const r = await mnemara(['doctor', '--json'], { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' });
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; ok: boolean; required: boolean; fix?: string }[] };
    expect(out.checks.map((c) => c.name)).toEqual(['node', 'docker', 'image', 'disk (mnemara home)', 'disk (docker)', 'writable', 'model', 'orphans', 'left-out', 'heads', 'pending', 'store temp', 'sandboxes']);
    expect(out.checks.find((c) => c.name === 'model')).toMatchObject({ ok: false, required: false });
    expect(out.checks.find((c) => c.name === 'model')?.fix).toContain('ANTHROPIC_API_KEY');
    expect(out.ok).toBe(true);
    expect(r.exitCode).toBe(0);
  });

  it('doctor fails with exit 1 and says how to fix it when no engine answers', async () => {
    const r = await mnemara(['doctor'], { DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/✗ docker .*no Docker engine answers/);
    expect(r.stdout).toContain('fix: start a Docker engine');
    expect(r.stdout).toMatch(/✗ image .*not checked/);
  });

  it('sandbox prune --json removes the leftover of a crashed process', async () => {
    const session = `cli-prune-${process.pid}`;
    const leftover = await crashedSandbox(session);
    try {
      // Doctor no longer says "ready" without a word about it: a warning names the container and the fix.
      const doctor = JSON.parse((await mnemara(['doctor', '--json'])).stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
      const sandboxes = doctor.checks.find((c) => c.name === 'sandboxes');
      expect(sandboxes?.ok).toBe(false);
      expect(sandboxes?.detail).toContain((await docker.getContainer(leftover).inspect()).Name.replace(/^\//, ''));
      expect(sandboxes?.fix).toContain('sandbox prune');
      const r = await mnemara(['sandbox', 'prune', '--session', session, '--json']);
      expect(r.exitCode).toBe(0);
      const out = JSON.parse(r.stdout) as { containers: { id: string }[]; failed: unknown[] };
      expect(out.containers.map((c) => c.id)).toEqual([leftover]);
      expect(out.failed).toEqual([]);
    } finally {
      await execa('docker', ['rm', '-f', '-v', leftover], { reject: false });
    }
  });
});
