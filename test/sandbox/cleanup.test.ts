import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { pruneSandboxes } from '../../src/sandbox/docker/prune.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'hold-sandbox.ts');

async function containersOf(session: string): Promise<string[]> {
  const { stdout } = await execa('docker', ['ps', '-aq', '--filter', `label=mnemara.session=${session}`]);
  return stdout.split('\n').filter(Boolean);
}
async function volumesOf(session: string): Promise<string[]> {
  const { stdout } = await execa('docker', ['volume', 'ls', '-q', '--filter', `label=mnemara.session=${session}`]);
  return stdout.split('\n').filter(Boolean);
}

/** Starts the fixture process and resolves with it and the sandbox it opened, once that is up. */
async function holdSandbox(backend: 'docker' | 'local', session: string, mode: 'exit' | 'wait') {
  const child = execa(process.execPath, ['--import', 'tsx', FIXTURE, backend, session, mode], {
    reject: false,
    env: { MNEMARA_LOG_LEVEL: 'warn' },
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error(`fixture exited early: ${buf}`)));
  });
  return { child, sandbox: JSON.parse(line) as { id: string; workspaceDir: string } };
}

describe('sandbox cleanup', () => {
  it('close() removes the container and its volume', async () => {
    const session = `close-${process.pid}`;
    const sb = await DockerSandbox.create({ sessionId: session });
    expect(await containersOf(session)).toHaveLength(1);
    expect(await volumesOf(session)).toHaveLength(1);
    await sb.close();
    expect(await containersOf(session)).toEqual([]);
    expect(await volumesOf(session)).toEqual([]);
  });

  it('removes a Docker sandbox left open when the process exits normally', async () => {
    const session = `exit-${process.pid}`;
    const { child } = await holdSandbox('docker', session, 'exit');
    await child;
    expect(await containersOf(session)).toEqual([]);
    expect(await volumesOf(session)).toEqual([]);
  });

  it('removes a Docker sandbox on SIGINT and exits 130', async () => {
    const session = `sigint-${process.pid}`;
    const { child } = await holdSandbox('docker', session, 'wait');
    expect(await containersOf(session)).toHaveLength(1);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(await containersOf(session)).toEqual([]);
  });

  it('removes a LocalSandbox directory on SIGTERM, and warns that it isolates nothing', async () => {
    const { child, sandbox } = await holdSandbox('local', `sigterm-${process.pid}`, 'wait');
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(143);
    expect(result.stderr).toContain('isolates nothing');
    await expect(stat(sandbox.workspaceDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('prune removes leftovers by label, and only those asked for', async () => {
    const session = `prune-${process.pid}`;
    const other = `prune-other-${process.pid}`;
    // Leftovers: sandboxes whose process never closed them (the registry would; forget them on purpose).
    const a = await DockerSandbox.create({ sessionId: session });
    const b = await DockerSandbox.create({ sessionId: other });
    try {
      const dry = await pruneSandboxes({ sessionId: session, dryRun: true });
      expect(dry.containers.map((c) => c.id)).toEqual([a.id]);
      expect(await containersOf(session)).toHaveLength(1);
      const done = await pruneSandboxes({ sessionId: session });
      expect(done.containers).toEqual([expect.objectContaining({ id: a.id, session, state: 'running' })]);
      expect(done.failed).toEqual([]);
      expect(await containersOf(session)).toEqual([]);
      expect(await volumesOf(session)).toEqual([]);
      expect(await containersOf(other)).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
