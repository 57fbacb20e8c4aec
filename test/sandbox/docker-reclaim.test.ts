/**
 * A fork bomb whose starting command exits at once is no timeout: by the rule, processes of a command that ended
 * are left alone, and the bomb held every process slot so that no later command could start (runc: "OCI runtime
 * exec failed"). When the sandbox's process table is full or nearly so, the reaper kills every process that
 * belongs to no running command, and the command that could not start runs (issue 10; docs/sandbox.md).
 */
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { withStderr } from '../support/stderr.js';

const PIDS = 128;

/** The container's pids cgroup count, read on the host (cgroup v1 cgroupfs, v2 cgroupfs, v2 systemd); null: unknown. */
function pidsCurrent(id: string): number | null {
  for (const p of [`/sys/fs/cgroup/pids/docker/${id}/pids.current`, `/sys/fs/cgroup/docker/${id}/pids.current`, `/sys/fs/cgroup/system.slice/docker-${id}.scope/pids.current`]) {
    try {
      return Number(readFileSync(p, 'utf8').trim());
    } catch {
      // the next layout
    }
  }
  return null;
}

/** Waits until the bomb holds (nearly) every slot, so that the next command really finds the table full. */
async function untilFull(id: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const n = pidsCurrent(id);
    if (n === null) return void (await new Promise((done) => setTimeout(done, 3_000)));
    if (n >= PIDS - 2 || Date.now() > until) return;
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function reaperReclaims(sb: DockerSandbox): Promise<number> {
  const raw = (await new Docker().getContainer(sb.id).logs({ stdout: true, stderr: false, follow: false })) as unknown as Buffer;
  return [...raw.toString('latin1').matchAll(/reclaimed(?! none)/g)].length;
}

describe('a fork bomb left behind by a command that ended (real Docker)', () => {
  let sb: DockerSandbox;
  beforeAll(async () => {
    sb = await DockerSandbox.create({ sessionId: 'reclaim-test', pidsLimit: PIDS, maxWorkspaceBytes: 0 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  // A bomb's bash processes give up when forks keep failing, so under load the table may have room again by the
  // next command; one that also leaves a `sleep` behind at every fork keeps it full: that one needs the reaper.
  for (const [name, bomb, reclaimed] of [
    ['setsid, outside the command\'s session, leaving sleeps', `setsid bash -c 'bomb() { sleep 1000 & bomb | bomb & }; bomb' </dev/null >/dev/null 2>&1 & exit 0`, true],
    ['setsid, outside the command\'s session', `setsid bash -c 'bomb() { bomb | bomb & }; bomb' </dev/null >/dev/null 2>&1 & exit 0`, false],
    ['in a subshell, the classic form', `(:(){ :|:& };:) </dev/null >/dev/null 2>&1 & exit 0`, false],
  ] as const) {
    it(`${name}: the next commands run${reclaimed ? ', and no bomb process is left' : ''}`, async () => {
      const reclaims = await reaperReclaims(sb);
      const started = await sb.exec(['bash', '-c', bomb], { timeoutMs: 30_000 });
      expect(started).toMatchObject({ exitCode: 0, timedOut: false });
      await untilFull(sb.id);
      const next = await sb.exec('echo alive', { timeoutMs: 30_000 });
      expect(next).toMatchObject({ exitCode: 0, stdout: 'alive\n', timedOut: false });
      if (reclaimed) {
        expect(await reaperReclaims(sb)).toBeGreaterThan(reclaims);
        // Only the `bash -c` of this very check is left.
        const after = await sb.exec('ps -e -o comm= | grep -c -E "^(bash|:|sleep)$" || true', { timeoutMs: 30_000 });
        expect(Number(after.stdout.trim())).toBeLessThanOrEqual(1);
      }
      // Commands after it run as usual.
      for (let i = 0; i < 3; i++) expect(await sb.exec('exit 3', { timeoutMs: 30_000 })).toMatchObject({ exitCode: 3, timedOut: false });
    }, 120_000);
  }

  it('a background child of an ended command is still left alone while the table has room', async () => {
    const n = 100_000 + Math.floor(Math.random() * 800_000);
    expect(await sb.exec(`sleep ${n} </dev/null >/dev/null 2>&1 & exit 0`, { timeoutMs: 30_000 })).toMatchObject({ exitCode: 0, timedOut: false });
    expect((await sb.exec(['pgrep', '-c', '-f', `sleep ${n}`])).stdout.trim()).toBe('1');
    await sb.exec(['pkill', '-f', `sleep ${n}`]);
  });
});

// With the default limit the bomb's processes wait in bash's fork retries and a slot comes free now and then: the
// engine does start the next command, and its shell is the one that cannot fork.
describe('a plain fork bomb in the background under the default limit (real Docker)', () => {
  const DEFAULT_PIDS = 512;
  let sb: DockerSandbox;
  beforeAll(async () => {
    sb = await DockerSandbox.create({ sessionId: 'reclaim-test-default', pidsLimit: DEFAULT_PIDS, maxWorkspaceBytes: 0 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  // The trial's shape (issue 10): the command that starts the bomb exits at once, and the exec of the next one
  // does start, but its shell cannot fork (bash retried ~26 s, then exit 254 "fork: Resource temporarily
  // unavailable"). The host sees the table full (before the command starts, or while it runs) and has it reclaimed.
  it('a plain bomb started in the background: the next command forks and runs normally', async () => {
    const started = await sb.exec(`bash -c 'f(){ f|f& }; f' >/dev/null 2>&1 & echo started`, { timeoutMs: 30_000 });
    expect(started).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    // The next command comes at once, while the bomb fills the table. Without the reclaim, bash's fork retries
    // print to stderr for ~26 s and it exits 254, turn after turn.
    for (let turn = 0; turn < 2; turn++) {
      const next = await sb.exec('sleep 2; echo alive', { timeoutMs: 60_000 });
      expect(next).toMatchObject({ exitCode: 0, stdout: 'alive\n', timedOut: false });
    }
  }, 120_000);
});

// Trial 23 F6: one fork storm printed "the sandbox's process table was full" 13 times in a row.
describe('the full-table warning (real Docker)', () => {
  let sb: DockerSandbox;
  beforeAll(async () => {
    sb = await DockerSandbox.create({ sessionId: 'reclaim-warn-test', pidsLimit: PIDS, maxWorkspaceBytes: 0 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('is said once for two storms a moment apart', async () => {
    const bomb = `setsid bash -c 'bomb() { sleep 1000 & bomb | bomb & }; bomb' </dev/null >/dev/null 2>&1 & exit 0`;
    const reclaims = await reaperReclaims(sb);
    const { stderr } = await withStderr(async () => {
      for (let i = 0; i < 2; i++) {
        expect(await sb.exec(['bash', '-c', bomb], { timeoutMs: 30_000 })).toMatchObject({ exitCode: 0 });
        await untilFull(sb.id);
        expect(await sb.exec('echo alive', { timeoutMs: 30_000 })).toMatchObject({ exitCode: 0, stdout: 'alive\n' });
      }
    });
    expect(await reaperReclaims(sb)).toBeGreaterThanOrEqual(reclaims + 2);
    expect(stderr.split('process table was full').length - 1).toBe(1);
  }, 180_000);
});
