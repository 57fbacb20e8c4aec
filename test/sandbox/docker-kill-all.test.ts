/**
 * The agent's `kill -9 -1` stops the container (its init dies too); the next exec must run in the container
 * started again. Found in CI (kill-all.test.ts, 1 of 4391): the next exec was created while the container was
 * still going down, and the runtime answered exit 126 with its own message ("cannot exec in a stopped
 * container/state", "task … not found", "ttrpc: closed") as the command's output, which reached the agent as
 * the command's result. On this engine that race is met in most kill-then-exec pairs, so ten pairs in a row
 * meet it; every command after a kill must still run. Real Docker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';

let sandbox: DockerSandbox;
beforeAll(async () => {
  sandbox = await DockerSandbox.create({ sessionId: 'kill-all-race' });
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

describe('a command right after every process in the sandbox was killed', () => {
  it('runs in the container started again, ten times in a row, and sees the workspace', async () => {
    await sandbox.exec("printf 'kept\\n' > /workspace/mark.txt");
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      await sandbox.exec('kill -9 -1');
      const r = await sandbox.exec(`cat /workspace/mark.txt && echo round-${i}`);
      seen.push(`${r.exitCode}:${(r.stdout + r.stderr).trim()}`);
    }
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `0:kept\nround-${i}`));
  }, 240_000);

  it("a command's own exit 126 is its result: not retried, the container not restarted", async () => {
    const initStart = "cut -d' ' -f22 /proc/1/stat";
    const before = (await sandbox.exec(initStart)).stdout;
    const r = await sandbox.exec("printf '#!/bin/sh\\necho ran\\n' > /workspace/x.sh && /workspace/x.sh");
    expect(r.exitCode).toBe(126);
    expect(r.stderr).toMatch(/Permission denied/);
    expect((await sandbox.exec(initStart)).stdout).toBe(before);
  }, 60_000);
});
