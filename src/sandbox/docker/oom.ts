import type Docker from 'dockerode';
import { rawExec } from './exec.js';

/** Where the kernel counts OOM kills of the container's memory cgroup (v1, then v2). */
const READ_COUNTER = [
  'bash',
  '-c',
  'grep -h "^oom_kill " /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null | head -n1',
];

/**
 * The container's OOM-kill count, read inside it; `null` when the kernel does not expose one. A process that
 * exits 137 while this count grew was killed by the sandbox's memory limit.
 */
export async function oomKillCount(container: Docker.Container, docker: Docker): Promise<number | null> {
  try {
    const r = await rawExec(container, docker, { argv: READ_COUNTER, timeoutMs: 10_000, maxOutputBytes: 256 });
    const match = /oom_kill (\d+)/.exec(r.stdout.text());
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
