/**
 * Issue 10, new-user trial (high): Ctrl-C twice right after the agent finished (`✓ agent: completed`, the second
 * SIGINT 0.3 s later) exited 130, removed the container, and no workspace snapshot held the run's code. The
 * second Ctrl-C now quits at once but leaves the sandbox running, and `mnemara recover` snapshots its /workspace
 * as it does after a SIGKILL: the agent's file is on the lineage afterwards. SIGTERM (`docker stop`, a CI timeout)
 * removed the container the same way; it is now an interrupt like Ctrl-C, and a second one keeps the sandbox.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from './harness.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const WORK = "module.exports = (req, res) => res.json({ ok: true }); // written before the double Ctrl-C\n";
const servers: MessagesServer[] = [];
const cleanups: Array<() => void> = [];
const rollouts: string[] = [];

const containersOf = async (id: string) => dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.session}=${id}`] } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  for (const id of rollouts) await removeSessionContainers(id);
  await Promise.all(servers.map((s) => s.close()));
  for (const c of cleanups) c();
});

describe.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s twice right after the agent completed', (signal, code) => {
  it(`exits ${code}, keeps the sandbox, and recover puts the agent’s code on the lineage`, { timeout: 300_000 }, async () => {
    const LINEAGE = `double-${signal.toLowerCase()}`;
    const dirs = scratch();
    cleanups.push(dirs.cleanup);
    const server = await startMessagesServer([
      turn(text('Adding the health route.'), toolUse('bash', { command: `mkdir -p routes && printf '%s' '${WORK}' > routes/health.js && echo ok` })),
      turn(text('Done: routes/health.js answers {ok:true}.')),
    ]);
    servers.push(server);
    const env = { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_LOG_LEVEL: 'warn' };
    const child = execa(process.execPath, ['--import', 'tsx', CLI, 'run', '-w', dirs.workspace, '--lineage', LINEAGE, '--task', 'add a health route'], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    let stderr = '';
    let interrupted = false;
    let rolloutId: string | undefined;
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const id = /rollout (\S+) on lineage/.exec(stderr);
      if (id && !rolloutId) {
        rolloutId = id[1]!;
        rollouts.push(rolloutId);
      }
      if (!interrupted && /✓ agent: completed/.test(stderr)) {
        interrupted = true;
        child.kill(signal);
        void sleep(300).then(() => child.kill(signal));
      }
    });
    const r = await child;
    expect(interrupted, stderr).toBe(true);
    expect(r.exitCode, stderr).toBe(code);
    expect(rolloutId).toBeDefined();

    const rec = await execa(process.execPath, ['--import', 'tsx', CLI, 'recover', '--json'], { env, extendEnv: false, reject: false });
    expect(rec.exitCode, rec.stderr).toBe(0);
    expect(await containersOf(rolloutId!)).toEqual([]);
    // The code is on the lineage: on its head (its first run), or on the branch that recover named.
    const store = await openStore(join(dirs.home, 'store'));
    const candidates = [await store.getHead(LINEAGE), await store.getBranch(`${LINEAGE}@${rolloutId}`)].filter((x): x is string => x !== null);
    const found: string[] = [];
    for (const [i, id] of candidates.entries()) {
      const out = join(dirs.root, `check-${i}`);
      await store.restoreToDirectory(id, out);
      if (existsSync(join(out, 'routes', 'health.js'))) found.push(readFileSync(join(out, 'routes', 'health.js'), 'utf8'));
    }
    expect(found.length, `no snapshot of ${candidates.join(', ')} holds routes/health.js`).toBeGreaterThan(0);
    for (const f of found) expect(f).toBe(WORK);
    // The banner said what the second Ctrl-C does.
    expect(stderr).toContain('a second Ctrl-C quits at once, keeping the sandbox');
  });
});
