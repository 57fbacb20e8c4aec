/**
 * The sandbox and a whole session against a Docker engine reached over TCP (a loopback listener in front of the
 * local socket), as a remote engine is: through sandbox.dockerHost in-process, and through DOCKER_HOST in a child.
 */
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { createSandbox, dockerClient } from '../../src/sandbox/index.js';
import type { SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startEngineProxy } from '../support/engine-proxy.js';
import { startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from '../session/harness.js';
import { join } from 'node:path';

const CHILD = fileURLToPath(new URL('../session/fixtures/session-child.ts', import.meta.url));
let proxy: Awaited<ReturnType<typeof startEngineProxy>>;
beforeAll(async () => {
  proxy = await startEngineProxy();
});
afterAll(async () => {
  await proxy?.close();
});

describe('a Docker engine reached over tcp://', () => {
  it('runs a sandbox through sandbox.dockerHost, with no host path mounted', async () => {
    const before = proxy.requests.length;
    const sandbox = await createSandbox({ backend: 'docker', sessionId: 'remote-engine', dockerHost: proxy.host });
    try {
      await sandbox.writeFile(`${sandbox.workspaceDir}/hello.txt`, 'über tcp\n');
      const r = await sandbox.exec(['cat', 'hello.txt'], { cwd: sandbox.workspaceDir });
      expect(r.stdout).toBe('über tcp\n');
      const info = await dockerClient(proxy.host).getContainer(sandbox.id).inspect();
      expect(info.HostConfig.Binds ?? []).toEqual([]);
      expect(info.Mounts.map((m) => m.Type).filter((t) => t !== 'volume' && t !== 'tmpfs')).toEqual([]);
    } finally {
      await sandbox.close();
    }
    const seen = proxy.requests.slice(before);
    expect(seen.some((l) => /^POST \S*\/containers\/create/.test(l))).toBe(true);
    expect(seen.some((l) => /^POST \S*\/exec\/\S+\/start/.test(l))).toBe(true);
  });

  describe('a whole session with DOCKER_HOST=tcp://127.0.0.1:PORT', () => {
    let dirs: ReturnType<typeof scratch>;
    let server: MessagesServer;
    let result: SessionResult;
    let seen: string[];
    beforeAll(async () => {
      dirs = scratch();
      server = await startMessagesServer(policy(FIX_BUG));
      const before = proxy.requests.length;
      const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
        env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: server.url, WORKSPACE: dirs.workspace, LINEAGE: 'remote', TASK: FIX_BUG.task, DOCKER_HOST: proxy.host },
        reject: false,
      });
      seen = proxy.requests.slice(before);
      const last = child.stdout.trim().split('\n').pop() ?? '';
      if (!last.startsWith('{"type":"result"')) throw new Error(`session child failed (exit ${child.exitCode}): ${child.stderr.slice(-2000)}`);
      result = (JSON.parse(last) as { result: SessionResult }).result;
      await removeSessionContainers(result.rolloutId);
    }, 240_000);
    afterAll(async () => {
      await server?.close();
      dirs?.cleanup();
    });

    it('completes: the agent ran its commands over TCP, the workspace snapshot and memory landed on the head', async () => {
      expect(result.outcome).toBe('completed');
      expect(result.pending).toBe(false);
      expect(seen.filter((l) => /^POST \S*\/containers\/create/.test(l))).toHaveLength(1);
      expect(seen.filter((l) => /^POST \S*\/exec\/\S+\/start/.test(l)).length).toBeGreaterThan(2);
      expect(seen.some((l) => /^GET \S*\/archive/.test(l))).toBe(true); // the workspace came back through the archive API
      const store = await openStore(join(dirs.home, 'store'));
      const head = await store.get((await store.getHead('remote')) as string);
      expect(head.rolloutIds).toContain(result.rolloutId);
    });
  });
});
