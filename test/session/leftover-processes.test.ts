/**
 * Processes the agent's commands leave running after they return (`cmd &`, `setsid env -i …`, `nohup`, a double
 * fork) are killed at the end of the run, before the workspace snapshot, so the tree it reads is stable and
 * nothing keeps writing into `memories/` after its redaction; the summary says how many were stopped. Real
 * Docker sandbox (kept after the run to look inside), the scripted Messages server as the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const leaveRunning = [
  'mkdir -p memories',
  // A plain background loop, one in a new session with an empty environment, one under nohup, a double fork.
  "(while :; do echo x >> memories/bg.log; sleep 0.1; done) > /dev/null 2>&1 &",
  "setsid env -i /bin/sh -c 'while :; do echo y >> /workspace/memories/bg-setsid.log; sleep 0.1; done' > /dev/null 2>&1 &",
  "nohup sh -c 'while :; do echo z >> /workspace/memories/bg-nohup.log; sleep 0.1; done' > /dev/null 2>&1 &",
  "sh -c '(sleep 1000 > /dev/null 2>&1 &) &'",
  'sleep 0.5; echo started',
].join('\n');

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let result: SessionResult;
let kept: DockerSandbox;

beforeAll(async () => {
  dirs = scratch('leftovers');
  server = await startMessagesServer([turn(toolUse('bash', { command: leaveRunning })), turn(text('Started the watchers.'))]);
  result = await runSession({ workspace: dirs.workspace, task: 'Start the log watchers.', config: testConfig(dirs.home, server.url), lineage: 'leftovers', keepSandbox: true });
  kept = await DockerSandbox.attach(result.keptSandbox!);
}, 240_000);
afterAll(async () => {
  if (result?.rolloutId) await removeSessionContainers(result.rolloutId);
  await server?.close();
  dirs?.cleanup();
});

describe('processes the agent left running', () => {
  it('are killed before the workspace snapshot, every kind, and the summary says how many', async () => {
    expect(result.outcome).toBe('completed');
    // Three loops (each a shell and maybe its sleep), nohup's shell, the double fork's sleep.
    expect(result.leftoverProcesses).toBeGreaterThanOrEqual(4);
    expect(formatSummary(result)).toContain(`processes   ${result.leftoverProcesses} left running by the agent's commands were stopped before the workspace snapshot`);
    const ps = await kept.exec(['ps', '-e', '-o', 'comm=']);
    const names = ps.stdout.split('\n').map((l) => l.trim()).filter(Boolean).sort();
    expect(names).toEqual(['mnemara-reaper', 'ps', 'tini']);
  });

  it('leave a stable tree: the logs stop growing, and the snapshot holds them as they ended', async () => {
    const read = async (): Promise<string> => (await kept.exec(['sh', '-c', 'cat memories/bg.log memories/bg-setsid.log memories/bg-nohup.log | wc -c'])).stdout.trim();
    const before = await read();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await read()).toBe(before);
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'restored');
    await store.restoreToDirectory(result.workspaceSnapshot!, out, { paths: ['memories'] });
    for (const f of ['bg.log', 'bg-setsid.log', 'bg-nohup.log']) {
      expect(readFileSync(join(out, 'memories', f), 'utf8')).toBe(String(await kept.readFile(`memories/${f}`)));
    }
  });
});
