/**
 * `mnemara run` and `mnemara config` as a user runs them: a real process, real Docker, the scripted Messages
 * server as the model. Checks output shapes and exit codes (0 completed, 1 agent failed, 2 bad input).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADD_DAYS, FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import type { SessionResult } from '../../src/session.js';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';
import { openStore } from '../../src/snapshot/index.js';
import { error, startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let dirs: ReturnType<typeof scratch>;
const servers: MessagesServer[] = [];

function mnemara(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

beforeAll(() => {
  dirs = scratch();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  dirs?.cleanup();
});

describe('mnemara run: bad input exits 2 with a message that says what to do', () => {
  it('refuses a missing task, a bad --max-turns and an unknown snapshot', async () => {
    const [noTask, badTurns, noSnapshot] = await Promise.all([
      mnemara(['run', '--workspace', dirs.workspace]),
      mnemara(['run', '--workspace', dirs.workspace, '--task', 'x', '--max-turns', 'many'], { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }),
      mnemara(['run', '--workspace', dirs.workspace, '--task', 'x', '--from', '20200101T000000000Z-00000000', '--json'], {
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      }),
    ]);
    expect(noTask.exitCode).toBe(2);
    expect(noTask.stderr).toContain('no task given');
    expect(noTask.stderr).toContain('--task-file');
    expect(badTurns.exitCode).toBe(2);
    expect(badTurns.stderr).toContain('agent.maxTurns = "many" (from flag --max-turns)');
    expect(noSnapshot.exitCode).toBe(2);
    expect(JSON.parse(noSnapshot.stdout)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    // Human output marks the failed step, and announces no rollout (none started).
    const human = await mnemara(['run', '--workspace', dirs.workspace, '--task', 'x', '--from', '20200101T000000000Z-00000000'], {
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(human.exitCode).toBe(2);
    expect(human.stderr).toMatch(/^✗ resolve: failed: snapshot 20200101T000000000Z-00000000 not found/m);
    expect(human.stderr).not.toContain('transcript');
  }, 60_000);
});

describe('mnemara run: sessions', () => {
  it('--json prints one result; the next run on the lineage starts from it, with live lines and a summary', async () => {
    const s1 = await startMessagesServer(policy(FIX_BUG));
    const s2 = await startMessagesServer(policy(ADD_DAYS));
    servers.push(s1, s2);
    const first = await mnemara(['run', '-w', dirs.workspace, '--task', FIX_BUG.task, '--json'], { ANTHROPIC_BASE_URL: s1.url });
    expect(first.exitCode).toBe(0);
    const r1 = JSON.parse(first.stdout) as SessionResult;
    expect(r1).toMatchObject({ outcome: 'completed', lineage: expect.stringMatching(/^durations-[0-9a-f]{8}$/), pending: false });
    expect(first.stderr).not.toContain('✓'); // --json: no progress lines

    // --task-file - reads stdin: an empty stdin is a missing task.
    const second = await execa(process.execPath, ['--import', 'tsx', MAIN, 'run', '-w', dirs.workspace, '--task-file', '-'], {
      env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: s2.url },
      extendEnv: false,
      stdin: 'ignore',
      reject: false,
    });
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain('stdin (--task-file -) gave no task: it is empty');

    const third = await execa(process.execPath, ['--import', 'tsx', MAIN, 'run', '-w', dirs.workspace, '--task-file', '-', '--no-live-update'], {
      env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: s2.url },
      extendEnv: false,
      input: ADD_DAYS.task,
      reject: false,
    });
    expect(third.exitCode).toBe(0);
    expect(third.stderr).toContain(`✓ resolve: head ${r1.head}`);
    expect(third.stderr).toMatch(/\[turn 1\] bash: grep .* memories\/MEMORY\.md → exit 0/);
    expect(third.stderr).toContain('✓ advance-head');
    expect(third.stdout).toMatch(/^outcome +completed$/m);
    expect(third.stdout).toMatch(/^lessons +0 added, 1 changed, 0 removed \(2 in MEMORY\.md\)$/m);
    expect(third.stdout).toMatch(/^ {2}~ Run the tests with `\.\/scripts\/check\.sh`/m);
    // --no-live-update reached the agent: no memory tool was offered to the model.
    const tools = (s2.messageRequests[0]?.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).not.toContain('memory');
    expect(tools).toContain('bash');
  }, 180_000);

  it('exits 1 when the agent fails, and still saves the run', async () => {
    let calls = 0;
    const server = await startMessagesServer(() => (++calls === 1 ? turn(toolUse('bash', { command: 'echo done > work.txt' })) : error(500, { retryAfterMs: 1 })));
    servers.push(server);
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'anything', '--lineage', 'failing', '--json'], { ANTHROPIC_BASE_URL: server.url });
    expect(run.exitCode).toBe(1);
    const r = JSON.parse(run.stdout) as SessionResult;
    expect(r.outcome).toBe('error');
    expect(r.workspaceSnapshot).not.toBeNull();
    expect(r.head).not.toBeNull();
  }, 120_000);

  // Thirteenth trial F20: a base URL that answers 404 (a doubled /v1) made a lineage, a 58 MB snapshot and an empty
  // rollout on every attempt. The model never replied: nothing was done, and nothing is saved.
  it('exits 1 and saves nothing when the model never replied', async () => {
    const server = await startMessagesServer(() => error(404, { message: 'no route /v1/v1/messages' }));
    servers.push(server);
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'anything', '--lineage', 'never-answered', '--json'], { ANTHROPIC_BASE_URL: server.url });
    expect(run.exitCode).toBe(1);
    const r = JSON.parse(run.stdout) as SessionResult;
    expect(r).toMatchObject({ outcome: 'error', nothingSaved: true, workspaceSnapshot: null, head: null });
    // A refused request is an error, not a cancellation, and no transcript was written to point to (trial 24).
    expect(r).not.toHaveProperty('cancelled');
    expect(r).not.toHaveProperty('transcriptPath');
    expect(r.agentError).toContain('404');
    expect(await (await openStore(join(dirs.home, 'store'))).getHead('never-answered')).toBeNull();
  }, 120_000);
});

describe('mnemara run --keep-sandbox', () => {
  it('leaves the container running after the process ended, labelled as mnemara\'s', async () => {
    const server = await startMessagesServer([turn(text('Nothing to do.'))]);
    servers.push(server);
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'look', '--lineage', 'kept', '--keep-sandbox', '--json'], { ANTHROPIC_BASE_URL: server.url });
    const r = JSON.parse(run.stdout) as SessionResult;
    expect(r.keptSandbox).toBeTruthy();
    const container = dockerClient().getContainer(r.keptSandbox as string);
    try {
      const info = await container.inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Config.Labels[LABEL.session]).toBe(r.rolloutId);
    } finally {
      await container.remove({ force: true, v: true });
    }
  }, 60_000);
});

describe('mnemara run --network host', () => {
  it('warns that the sandbox shares the host network, on stderr and in the result', async () => {
    // One reply per run: a run the model never answered saves nothing (no lineage), so the last run would be a
    // fresh copy again.
    const server = await startMessagesServer(Array.from({ length: 4 }, () => turn(text('Nothing to do.'))));
    servers.push(server);
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'look', '--lineage', 'hostnet', '--network', 'host'], { ANTHROPIC_BASE_URL: server.url });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("warning: the sandbox shares this host's network (--network host)");
    const json = await mnemara(['run', '-w', dirs.workspace, '--task', 'look', '--lineage', 'hostnet', '--network', 'host', '--json'], { ANTHROPIC_BASE_URL: server.url });
    expect((JSON.parse(json.stdout) as SessionResult).notices?.map((n) => n.kind)).toEqual(['shared-network']);
    // A fresh copy of a directory with the user's own token file says so (thirteenth trial F1); from the head, no more.
    const ws = join(dirs.root, 'with-npmrc');
    mkdirSync(ws);
    writeFileSync(join(ws, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n');
    const fresh = await mnemara(['run', '-w', ws, '--task', 'look', '--lineage', 'npmrc'], { ANTHROPIC_BASE_URL: server.url });
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(fresh.stderr).toContain(`warning: 1 file(s) of ${ws} hold credentials and are copied with the workspace into every snapshot`);
    expect(fresh.stderr).not.toContain('npm_AbCd');
    const again = await mnemara(['run', '-w', ws, '--task', 'look', '--lineage', 'npmrc'], { ANTHROPIC_BASE_URL: server.url });
    expect(again.stderr).not.toContain('hold credentials');
  }, 120_000);
});

describe('mnemara run against a model endpoint that does not answer', () => {
  // Thirteenth trial F5: a gateway that accepted the connection and never answered gave five minutes of silence
  // per attempt, and no option set the request's time limit.
  it('says it is waiting, gives up the attempt after anthropic.requestTimeoutMs and retries', async () => {
    const server = await startMessagesServer(async (_req, index) => {
      if (index === 0) await new Promise((r) => setTimeout(r, 8_000));
      return turn(text('Done.'));
    });
    servers.push(server);
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'look', '--lineage', 'slow', '--set', 'anthropic.requestTimeoutMs=3000'], { ANTHROPIC_BASE_URL: server.url });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/… waiting for the model \(turn 1\): \d+ s, no answer yet \(an attempt gives up after 3\.0 s and is retried: anthropic\.requestTimeoutMs/);
    expect(server.messageRequests.length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});

describe('mnemara run with escape sequences in what the model controls', () => {
  // Thirteenth trial F15: a command and a file name printed raw cleared the screen and forged a passing line.
  it('prints them as \\xNN, never as control characters', async () => {
    const server = await startMessagesServer([
      turn(toolUse('bash', { command: "echo hi # \u001b[2J\u001b[31mFAKE: all tests passed\u001b]0;pwned\u0007 && printf 'ghp_%s' 16C7e42F292c6912E7710c838347Ae178B4a > \"$(printf 'tok\\033[31mred.txt')\"" })),
      turn(text('Done \u001b[2J.')),
    ]);
    servers.push(server);
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'escape', '--lineage', 'ansi'], { ANTHROPIC_BASE_URL: server.url });
    expect(run.exitCode, run.stderr).toBe(0);
    const printed = run.stdout + run.stderr;
    expect(printed).toContain('\\x1b[2J\\x1b[31mFAKE: all tests passed\\x1b]0;pwned\\x07');
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  }, 120_000);
});

describe('mnemara run --store DIR', () => {
  // Twelfth trial F26: the summary's commands left --store out, and pasted as printed they looked in the default
  // store ("lineage shared has no snapshot").
  it('prints commands that carry --store, and each works as printed', async () => {
    const server = await startMessagesServer([turn(toolUse('bash', { command: 'echo changed > changed.txt' })), turn(text('Done.'))]);
    servers.push(server);
    const store = join(dirs.root, 'other-store');
    const run = await mnemara(['run', '-w', dirs.workspace, '--task', 'change it', '--lineage', 'elsewhere', '--store', store], { ANTHROPIC_BASE_URL: server.url });
    expect(run.exitCode, run.stderr).toBe(0);
    const printed = [...run.stdout.matchAll(/(?:see it|bring it):\s+mnemara (.+?)(?:\s{3}\(or run with --apply\))?$/gm)].map((m) => m[1] as string);
    expect(printed).toHaveLength(2);
    for (const line of printed) {
      expect(line).toContain(`--store ${store}`);
      const args = line.split(' ');
      const done = await mnemara(args[0] === 'apply' ? [...args, '--check'] : args);
      expect(done.exitCode, `${line}\n${done.stderr}`).toBe(0);
    }
  }, 120_000);
});

describe('mnemara run: Ctrl-C', () => {
  // Two new-user trials: one Ctrl-C waited for the whole command (up to the 120 s exec timeout).
  it('stops the command running now, ends as interrupted (exit 1), still saves the work and makes its memory', async () => {
    const server = await startMessagesServer([
      turn(toolUse('bash', { command: 'echo started > started.txt && sleep 600 && echo finished > slept.txt' })),
      turn(toolUse('bash', { command: 'echo never > never.txt' })),
      turn(text('done')),
    ]);
    servers.push(server);
    const child = mnemara(['run', '-w', dirs.workspace, '--task', 'sleep', '--lineage', 'interrupt', '--json'], { ANTHROPIC_BASE_URL: server.url });
    while (server.messageRequests.length === 0) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 2_500)); // the sleep is running in the sandbox now (margin for a loaded machine)
    process.kill(child.pid as number, 'SIGINT'); // not child.kill: execa follows it with SIGKILL after 5 s
    const run = await child;
    expect(run.exitCode).toBe(1);
    const r = JSON.parse(run.stdout) as SessionResult;
    expect(r.outcome).toBe('interrupted');
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'interrupted');
    await store.restoreToDirectory(r.workspaceSnapshot as string, out);
    expect(readFileSync(join(out, 'started.txt'), 'utf8')).toBe('started\n');
    expect(existsSync(join(out, 'slept.txt'))).toBe(false);
    expect(existsSync(join(out, 'never.txt'))).toBe(false);
    expect(r.memorySkipped).toBeUndefined();
    expect(r.memorySnapshot).not.toBeNull();
    expect(readFileSync(join(out, 'sessions', `${r.rolloutId}.jsonl`), 'utf8')).toContain('"outcome":"interrupted"');
  }, 120_000);
});

describe('mnemara run: SIGTERM (a CI cancel, `docker stop`)', () => {
  // The twelfth trial: SIGTERM waited for a 60 s command, the sender's SIGKILL came first, nothing was saved.
  it('kills the command running now, ends as interrupted (exit 1) and saves the work at once', async () => {
    const server = await startMessagesServer([
      turn(toolUse('bash', { command: 'echo early > early.txt && sleep 600 && echo late > late.txt' })),
      turn(toolUse('bash', { command: 'echo never > never.txt' })),
      turn(text('done')),
    ]);
    servers.push(server);
    const child = mnemara(['run', '-w', dirs.workspace, '--task', 'long tests', '--lineage', 'sigterm', '--json'], { ANTHROPIC_BASE_URL: server.url });
    while (server.messageRequests.length === 0) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 2_500));
    // Not child.kill: execa follows it with SIGKILL after 5 s.
    process.kill(child.pid as number, 'SIGTERM');
    const run = await child;
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('stopping the command running now');
    const r = JSON.parse(run.stdout) as SessionResult;
    expect(r.outcome).toBe('interrupted');
    // Phase 1 and 2 may wait on the model for minutes: skipped, the rollout pending at the head for the next session.
    expect(r).toMatchObject({ memorySkipped: 'stopped', pending: true, head: r.workspaceSnapshot });
    const out = join(dirs.root, 'sigterm');
    await (await openStore(join(dirs.home, 'store'))).restoreToDirectory(r.workspaceSnapshot as string, out);
    expect(readFileSync(join(out, 'early.txt'), 'utf8')).toBe('early\n');
    expect(existsSync(join(out, 'late.txt'))).toBe(false);
    expect(existsSync(join(out, 'never.txt'))).toBe(false);
    expect(readFileSync(join(out, 'sessions', `${r.rolloutId}.jsonl`), 'utf8')).toContain('the run was interrupted (Ctrl-C or SIGTERM) and the process tree was killed');
  }, 150_000);
});

describe('examples/ci/github-actions.yml', () => {
  it('uses only flags that mnemara run has', async () => {
    const workflow = readFileSync(fileURLToPath(new URL('../../examples/ci/github-actions.yml', import.meta.url)), 'utf8');
    const script = workflow.slice(workflow.indexOf('MEMORY_FROM=()'), workflow.indexOf('code=$?')).replace(/snapshot list.*/, '');
    const flags = [...new Set(script.match(/--[a-z][a-z-]+/g))];
    expect(flags).toEqual(expect.arrayContaining(['--workspace', '--lineage', '--memory-from', '--task', '--json']));
    const help = await mnemara(['run', '--help']);
    expect(flags.filter((f) => !help.stdout.includes(f))).toEqual([]);
  }, 120_000);
});

describe('mnemara config', () => {
  it('prints every option with its source, secrets masked', async () => {
    const key = 'sk-ant-api03-secretsecretsecret-tail';
    const out = await mnemara(['config', '--json', '--set', 'sandbox.pidsLimit=64'], { ANTHROPIC_API_KEY: key, MNEMARA_AGENT_MAX_TURNS: '7' });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).not.toContain('secretsecret');
    const doc = JSON.parse(out.stdout) as { options: { option: string; value: unknown; source: string }[] };
    const byName = Object.fromEntries(doc.options.map((o) => [o.option, o]));
    expect(byName['agent.maxTurns']).toMatchObject({ value: 7, source: 'env MNEMARA_AGENT_MAX_TURNS' });
    expect(byName['sandbox.pidsLimit']).toMatchObject({ value: 64, source: 'flag --set sandbox.pidsLimit' });
    expect(byName['anthropic.apiKey']?.value).toBe('sk-…tail');
  }, 120_000);
});
