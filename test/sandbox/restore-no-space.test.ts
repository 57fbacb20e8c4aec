/**
 * New-user trial (#10): a real repository (354 MB) restored into a small home (100 MB) printed ~400 raw
 * `tar: …: Cannot mkdir: No space left on device` lines and exited 3. Extraction into a /workspace that runs
 * out of space now fails with one clear error: the sizes, what to do, at most three of tar's lines.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { tempDir } from '../snapshot/helpers.js';

describe('a workspace that does not fit the sandbox', () => {
  it('gives one DISK_FULL error with the quota, the hint and at most three lines of tar', async () => {
    // A repository with node_modules: 40 packages × 8 files of 96 KiB of incompressible data (~30 MiB, twice the quota).
    const repo = tempDir();
    for (let p = 0; p < 40; p++) {
      const dir = join(repo, 'node_modules', `pkg-${p}`, 'lib');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(repo, 'node_modules', `pkg-${p}`, 'package.json'), JSON.stringify({ name: `pkg-${p}`, version: '1.0.0' }));
      for (let f = 0; f < 8; f++) writeFileSync(join(dir, `chunk-${f}.js`), randomBytes(96 * 1024));
    }
    writeFileSync(join(repo, 'package.json'), '{"name":"big-repo","version":"0.1.0"}\n');
    const sb = await DockerSandbox.create({ sessionId: `nospace-${process.pid}`, maxWorkspaceBytes: 16 * 1024 * 1024 });
    try {
      const tar = execa('tar', ['-c', '-f', '-', '-C', repo, '.'], { buffer: false, encoding: 'buffer' });
      const err = await sb.putArchive(tar.stdout!, sb.workspaceDir).then(() => null, (e: unknown) => e as { code: string; message: string; hint?: string });
      await tar.catch(() => undefined);
      expect(err).not.toBeNull();
      expect(err!.code).toBe('DISK_FULL');
      expect(err!.message).toMatch(/the workspace does not fit into the sandbox: \/workspace has \d+ MiB \(\d+ MiB used, \d+ MiB free\)/);
      expect(err!.message.split('\n').filter((l) => l.includes('tar:')).length).toBeLessThanOrEqual(3);
      expect(err!.message).toMatch(/more lines like these/);
      expect(err!.hint).toMatch(/sandbox\.maxWorkspaceBytes/);
      expect(err!.hint).toMatch(/MNEMARA_HOME/);
    } finally {
      await sb.close();
    }
  }, 120_000);
});
