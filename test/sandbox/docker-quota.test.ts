import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

/** The loop devices attached right now, as `NAME BACK-FILE` lines. */
async function loopDevices(): Promise<string> {
  return (await execa('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE'])).stdout;
}

/** Issue 10, item 7: /workspace has a hard quota; the host loses at most the quota. */
describe('DockerSandbox workspace quota (real Docker, loop-mounted ext4)', () => {
  const open: DockerSandbox[] = [];
  afterAll(async () => {
    for (const sb of open) await sb.close();
  });

  it('stops a 25 GiB write at a 64 MiB quota with ENOSPC and says which limit it hit', async () => {
    const sb = await DockerSandbox.create({ sessionId: 'quota-test', maxWorkspaceBytes: 64 * MiB });
    open.push(sb);
    expect(sb.workspaceQuotaBytes).toBe(64 * MiB);
    const device = (await sb.exec(['findmnt', '-n', '-o', 'SOURCE', '/workspace'])).stdout.trim();
    expect(device).toMatch(/^\/dev\/loop\d+$/);
    // 25 GiB asked for; the filesystem ends it long before.
    const r = await sb.exec('dd if=/dev/zero of=/workspace/big bs=1M count=25600 status=none', { timeoutMs: 120_000 });
    expect(r.exitCode).not.toBe(0);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toContain('No space left on device');
    expect(r.stderr).toContain(`/workspace has a quota of ${64 * MiB} bytes (sandbox.maxWorkspaceBytes)`);
    const written = Number((await sb.exec('stat -c %s /workspace/big')).stdout.trim());
    expect(written).toBeGreaterThan(48 * MiB);
    expect(written).toBeLessThanOrEqual(64 * MiB);
    // What the host holds for it: the loop device's backing file, never more than its size.
    const host = await execa('bash', ['-c', `cat /sys/block/${device.replace('/dev/', '')}/size`]);
    expect(Number(host.stdout) * 512).toBe(64 * MiB);
    // The workspace is empty at the start (no lost+found) and owned by the sandbox user.
    const ls = await sb.exec('rm /workspace/big && ls -A /workspace | wc -l && stat -c %U /workspace && echo ok > /workspace/f && cat /workspace/f');
    expect(ls.stdout).toBe('0\nagent\nok\n');
    await sb.close();
    // Closing detaches the device: nothing is left on the host.
    expect(await loopDevices()).not.toContain(device + ' ');
  });

  it('gives a sandbox created with the defaults a 20 GiB workspace filesystem', async () => {
    const sb = await DockerSandbox.create({ sessionId: 'quota-default-test' });
    open.push(sb);
    expect(sb.workspaceQuotaBytes).toBe(20 * GiB);
    const df = await sb.exec(['df', '-B1', '--output=size', '/workspace']);
    const size = Number(df.stdout.trim().split('\n')[1]);
    // ext4's own metadata takes ~1.5 % of it.
    expect(size).toBeGreaterThan(19.5 * GiB);
    expect(size).toBeLessThanOrEqual(20 * GiB);
  });

  it('runs without a quota when maxWorkspaceBytes is 0', async () => {
    const sb = await DockerSandbox.create({ sessionId: 'quota-off-test', maxWorkspaceBytes: 0 });
    open.push(sb);
    expect(sb.workspaceQuotaBytes).toBe(0);
    const src = (await sb.exec(['findmnt', '-n', '-o', 'SOURCE', '/workspace'])).stdout.trim();
    expect(src).not.toMatch(/^\/dev\/loop/);
  });
});
