import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Docker from 'dockerode';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { sandboxImageTag } from '../../src/sandbox/image-tag.js';

/**
 * On a loaded machine mnemara-reaper starts seconds after tini (7.8 s measured at load 36, in the 8-session
 * stress run); the leftover-process kill took it for an agent's process, killed it, and so stopped the container
 * (exit 137) before the workspace snapshot. This image makes the same late start on an idle machine: PID 1 waits
 * 6 s before it becomes tini, so tini's child, the reaper, starts 6 s after PID 1.
 */
const LATE = 'mnemara-sandbox-late-reaper:test';

describe('the leftover-process kill and a reaper that started late (real Docker)', () => {
  let sb: DockerSandbox;
  beforeAll(async () => {
    const base = await sandboxImageTag();
    const dockerfile = [
      `FROM ${base}`,
      'ENTRYPOINT ["/bin/bash", "-c", "sleep 6; exec /usr/bin/tini -- \\"$@\\"", "late"]',
      'CMD ["/opt/mnemara/bin/mnemara-reaper"]',
    ].join('\n');
    execFileSync('docker', ['build', '-q', '-t', LATE, '-'], { input: dockerfile, stdio: ['pipe', 'ignore', 'inherit'] });
    sb = await DockerSandbox.create({ sessionId: 'late-reaper-test', image: LATE });
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
    execFileSync('docker', ['rmi', '-f', LATE], { stdio: 'ignore' });
  });

  it('kills what the agent left running and spares the reaper, so the container keeps running', async () => {
    const container = new Docker().getContainer(sb.id);
    // Wait for the reaper (tini forks it once the 6 s are up), then leave a detached process behind.
    await expect.poll(async () => (await sb.exec(['pgrep', '-x', 'mnemara-reaper'])).stdout.trim(), { timeout: 30_000, interval: 500 }).not.toBe('');
    const reaper = (await sb.exec(['pgrep', '-x', 'mnemara-reaper'])).stdout.trim();
    const ages = (await sb.exec(['bash', '-c', `echo $(cut -d' ' -f22 /proc/1/stat) $(cut -d' ' -f22 /proc/${reaper}/stat)`])).stdout.trim().split(' ').map(Number);
    expect(ages[1]! - ages[0]!, 'the reaper must start over 5 s (500 ticks) after PID 1 for this test to mean anything').toBeGreaterThan(500);
    await sb.exec('setsid sleep 424242 </dev/null >/dev/null 2>&1 &');

    const stopped = await sb.stopLeftoverProcesses();

    expect(stopped).toBeGreaterThanOrEqual(1);
    const state = (await container.inspect()).State;
    expect(state.Running).toBe(true);
    expect(state.Pid).toBeGreaterThan(0);
    expect((await sb.exec(['pgrep', '-x', 'mnemara-reaper'])).stdout.trim()).toBe(reaper);
    expect((await sb.exec(['pgrep', '-c', '-f', 'sleep 424242'])).stdout.trim()).toBe('0');
  }, 120_000);
});
