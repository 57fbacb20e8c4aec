import { stat } from 'node:fs/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { pruneSandboxes } from '../../src/sandbox/docker/prune.js';
import { containersOf, crashedSandbox, holdSandbox, volumesOf } from './hold.js';

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

  it('says the container is gone when it was removed behind its back, and still closes', async () => {
    const sb = await DockerSandbox.create({ sessionId: `gone-${process.pid}` });
    await execa('docker', ['rm', '-f', '-v', sb.id]);
    await expect(sb.exec('true')).rejects.toThrow(/sandbox container is gone or stopped/);
    await expect(sb.close()).resolves.toBeUndefined();
  });

  it('removes a Docker sandbox left open when the process exits normally', async () => {
    const session = `exit-${process.pid}`;
    const { child } = await holdSandbox('docker', session, 'exit');
    await child;
    expect(await containersOf(session)).toEqual([]);
    expect(await volumesOf(session)).toEqual([]);
  });

  it('leaves a kept sandbox running after the process exits, for prune to remove later', async () => {
    const session = `keep-${process.pid}`;
    const { child, sandbox } = await holdSandbox('docker', session, 'keep');
    await child;
    try {
      expect(await containersOf(session)).toEqual([sandbox.id]);
      const pruned = await pruneSandboxes({ sessionId: session });
      expect(pruned.containers.map((c) => c.id)).toEqual([sandbox.id]);
    } finally {
      await execa('docker', ['rm', '-f', '-v', sandbox.id], { reject: false });
    }
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

  it('prune removes the leftover of a crashed process by label, keeps sandboxes in use and other sessions', async () => {
    const session = `prune-${process.pid}`;
    const other = `prune-other-${process.pid}`;
    const leftover = await crashedSandbox(session);
    const live = await DockerSandbox.create({ sessionId: session });
    const otherLeftover = await crashedSandbox(other);
    try {
      const dry = await pruneSandboxes({ sessionId: session, dryRun: true });
      expect(dry.containers.map((c) => c.id)).toEqual([leftover]);
      expect(dry.inUse.map((c) => c.id)).toEqual([live.id]);
      expect(await containersOf(session)).toHaveLength(2);

      const done = await pruneSandboxes({ sessionId: session });
      expect(done.containers).toEqual([expect.objectContaining({ id: leftover, session, state: 'running' })]);
      expect(done.failed).toEqual([]);
      expect(done.volumes).toHaveLength(1);
      expect(dry.volumes).toEqual(done.volumes);
      expect(await containersOf(session)).toEqual([live.id]);
      expect(await volumesOf(session)).toHaveLength(1);
      expect((await live.exec('echo still here')).stdout).toBe('still here\n');
      expect(await containersOf(other)).toEqual([otherLeftover]);

      const forced = await pruneSandboxes({ sessionId: session, force: true });
      expect(forced.containers.map((c) => c.id)).toEqual([live.id]);
      expect(await volumesOf(session)).toEqual([]);
    } finally {
      await live.close();
      await pruneSandboxes({ sessionId: other });
    }
    expect(await containersOf(other)).toEqual([]);
  });
});
