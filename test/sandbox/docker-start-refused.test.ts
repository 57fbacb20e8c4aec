/**
 * Twelfth new-user trial F25: a sandbox container removed under the run (`docker rm -f`) looked stopped for a
 * moment, and the log said "started it again: /workspace is as it was" just before the run failed with "no such
 * container". The line is said only once the start succeeded. Here the engine (real, behind a proxy that refuses
 * the container's start, as an engine removing it does) cannot start the container the agent stopped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { startEngineProxy } from '../support/engine-proxy.js';
import { withStderr } from '../support/stderr.js';

let proxy: Awaited<ReturnType<typeof startEngineProxy>> | undefined;
let sandbox: DockerSandbox | undefined;
afterAll(async () => {
  await sandbox?.close().catch(() => undefined);
  await proxy?.close();
});

describe('a stopped sandbox container that cannot be started again', () => {
  it('keeps the refusal and never says it was started again', async () => {
    let refuseStart = false;
    proxy = await startEngineProxy('/var/run/docker.sock', (line) => refuseStart && /^POST \S*\/containers\/[^/]+\/start/.test(line));
    sandbox = await DockerSandbox.create({ sessionId: 'start-refused', dockerHost: proxy.host });
    refuseStart = true;
    const { value: r, stderr } = await withStderr(async () => {
      await sandbox!.exec('kill -9 -1');
      return sandbox!.exec('echo hi').then(
        (x) => ({ exitCode: x.exitCode, out: x.stdout }),
        (err: Error) => ({ error: err.message }),
      );
    });
    expect(r).not.toEqual({ exitCode: 0, out: 'hi\n' });
    expect(proxy.requests.some((l) => /\/containers\/[^/]+\/start/.test(l))).toBe(true);
    expect(stderr).not.toContain('started it again');
  }, 120_000);
});
