/**
 * Which exec results are the engine's or the runtime's refusal because the container stopped under it (retried
 * in the container started again), and which are a command's own result (kept). CI met the engine's shape once
 * (docker-kill-all.test.ts): the exec passed the engine's first check, the container stopped, and the engine wrote
 * "No such exec instance: <id>" into the stream with no exit code; the run took that as the command's output.
 * The real-engine race is in docker-kill-all.test.ts; here each shape is pinned down, the look-alikes too.
 */
import { describe, expect, it } from 'vitest';
import { refusedAsStopped } from '../../src/sandbox/docker/stopped.js';
import { CappedOutput } from '../../src/sandbox/output-cap.js';
import type { RawExecResult } from '../../src/sandbox/docker/exec.js';

const id = 'a75b03d74a44a07c92527366a44b8a4649a42407b989e3b656a2943d6add7f34';

function result(exitCode: number | null, stdout: string, stderr = '', timedOut = false): RawExecResult {
  const out = new CappedOutput(1 << 20);
  out.push(Buffer.from(stdout));
  const err = new CappedOutput(1 << 20);
  err.push(Buffer.from(stderr));
  return { exitCode, stdout: out, stderr: err, timedOut, durationMs: 5 };
}

describe('refusedAsStopped', () => {
  it.each([
    ['the engine dropped the exec (no exit code)', result(null, `No such exec instance: ${id}\r\n`)],
    ['the engine saw the container stopped', result(null, `Container ${id} is not running\r\n`)],
    ['the engine saw it restarting', result(null, '', `Container ${id} is restarting, wait until the container is running\r\n`)],
    ['the runtime: stopped state', result(126, 'OCI runtime exec failed: exec failed: cannot exec in a stopped state: unknown\r\n')],
    ['the runtime: task gone', result(126, `task ${id} not found: not found\r\n`)],
  ])('%s is a refusal', (_, r) => {
    expect(refusedAsStopped(r)).toBe(true);
  });

  it.each([
    ['a command that printed the words and failed', result(1, `No such exec instance: ${id}\n`)],
    ['a command that printed them and timed out', result(null, `No such exec instance: ${id}\n`, '', true)],
    ['no exit code and other output', result(null, 'building…\nNo such exec instance: x\n')],
    ['a script that is not executable', result(126, '', '/bin/sh: 1: /workspace/x.sh: Permission denied\n')],
    ['a long output that ends with the words', result(null, `${'x'.repeat(2_000)}\nNo such exec instance: ${id}`)],
  ])('%s is the command’s own result', (_, r) => {
    expect(refusedAsStopped(r)).toBe(false);
  });
});
