import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { sandboxUserIds } from '../../src/sandbox/image-tag.js';
import { VERSION } from '../../src/config/version.js';

const MEMORY = 256 * 1024 ** 2;
const PIDS = 128;

/** Docker-only guarantees: isolation, limits and labels, checked on one shared container. */
describe('DockerSandbox hardening', () => {
  let sb: DockerSandbox;
  beforeAll(async () => {
    sb = await DockerSandbox.create({ sessionId: 'hardening-test', memoryBytes: MEMORY, pidsLimit: PIDS, cpus: 1 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('has no network: connecting and resolving names both fail', async () => {
    const connect = await sb.exec(
      ['python3', '-c', 'import socket; socket.create_connection(("1.1.1.1", 80), timeout=3)'],
      { timeoutMs: 15_000 },
    );
    expect(connect.exitCode).not.toBe(0);
    expect(connect.stderr).toMatch(/Network is unreachable|OSError/);
    const dns = await sb.exec(['getent', 'hosts', 'deb.debian.org'], { timeoutMs: 15_000 });
    expect(dns.exitCode).not.toBe(0);
    const links = await sb.exec('ls /sys/class/net');
    expect(links.stdout.trim()).toBe('lo');
  });

  it('runs as the non-root sandbox user with zero effective capabilities, on a read-only root', async () => {
    const { uid, gid } = sandboxUserIds();
    const r = await sb.exec('id -u; id -g; grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status');
    expect(r.stdout).toBe(`${uid}\n${gid}\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n`);
    const root = await sb.exec('touch /etc/mnemara-probe');
    expect(root.exitCode).not.toBe(0);
    expect(root.stderr).toContain('Read-only file system');
    const writable = await sb.exec('touch /workspace/w /tmp/t ~/h && echo ok');
    expect(writable.stdout).toBe('ok\n');
  });

  it('contains a fork bomb with the process limit; the host stays responsive and the sandbox usable', async () => {
    // `exec sleep` needs no fork: with a plain `sleep` the command itself could be refused a process once the
    // bomb fills the limit and end early, so the timeout (the part under test) would not be reached.
    const bomb = sb.exec('bomb() { bomb | bomb & }; bomb; exec sleep 100', { timeoutMs: 4_000 });
    // While the bomb runs, the host must still start a process quickly.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const hostStart = performance.now();
    await execa('true');
    const hostMs = performance.now() - hostStart;
    const r = await bomb;
    expect(r.timedOut).toBe(true);
    // The limit was reached: bash reports forks refused.
    expect(r.stderr).toContain('Resource temporarily unavailable');
    expect(hostMs).toBeLessThan(2_000);
    const after = await sb.exec('cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max; ps -e --no-headers | wc -l');
    const [max, count] = after.stdout.trim().split('\n').map(Number);
    expect(max).toBe(PIDS);
    // tini, mnemara-reaper (and its pipe helper), and this command's bash + ps + wc: the bomb is gone.
    expect(count).toBeLessThan(10);
  });

  it('reports a memory hog killed by the limit as out of memory, and a plain SIGKILL as not', async () => {
    const hog = await sb.exec(['python3', '-c', 'a = bytearray(600 * 1024 * 1024); print(len(a))']);
    expect(hog.exitCode).toBe(137);
    expect(hog.oomKilled).toBe(true);
    const plain = await sb.exec('kill -9 $$');
    expect(plain.exitCode).toBe(137);
    expect(plain.oomKilled).toBe(false);
    expect((await sb.exec('echo alive')).stdout).toBe('alive\n');
  });

  it('shows every hardening flag and label in `docker inspect`', async () => {
    const { stdout } = await execa('docker', ['inspect', sb.id]);
    const [info] = JSON.parse(stdout) as [
      {
        Config: { User: string; Labels: Record<string, string> };
        HostConfig: Record<string, unknown> & { Tmpfs: Record<string, string> };
        Mounts: { Type: string; Destination: string; RW: boolean }[];
      },
    ];
    const host = info.HostConfig;
    expect(host.NetworkMode).toBe('none');
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.SecurityOpt).toEqual(['no-new-privileges']);
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Memory).toBe(MEMORY);
    expect(host.MemorySwap).toBe(MEMORY);
    expect(host.NanoCpus).toBe(1e9);
    expect(host.PidsLimit).toBe(PIDS);
    expect(host.Privileged).toBe(false);
    expect(Object.keys(host.Tmpfs).sort()).toEqual(['/home/agent', '/tmp']);
    expect(info.Mounts).toEqual([expect.objectContaining({ Type: 'volume', Destination: '/workspace', RW: true })]);
    expect(info.Config.User).not.toMatch(/^(0|root)?(:|$)/);
    expect(info.Config.Labels).toMatchObject({
      mnemara: '1',
      'mnemara.session': 'hardening-test',
      'mnemara.version': VERSION,
    });
  });
});

describe('DockerSandbox options', () => {
  it('rejects a limit out of range before touching the engine, naming the option', async () => {
    await expect(DockerSandbox.create({ sessionId: 'bad-options', pidsLimit: 0 })).rejects.toThrow(
      /sandbox option pidsLimit = 0 \(number\) is invalid/,
    );
    await expect(DockerSandbox.create({ sessionId: 'bad-options', memoryBytes: 1024 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});
