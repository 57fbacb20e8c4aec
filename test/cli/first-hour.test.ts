/**
 * What a new user meets in the first hour (issue 11), as they meet it: a real `mnemara` process, real Docker,
 * the scripted Messages server as the model, a copy of the demo repository under git as the host directory.
 * Each message of the "messages that do not help" list has a case here, and so do the memory commands on
 * `-w DIR`, `snapshot patch` (applied with `git apply` to the original checkout) and `apply`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import type { SessionResult } from '../../src/session.js';
import { startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { scratch } from '../session/harness.js';

/** The installed entry point, as a user runs it (it registers tsx itself, from any working directory). */
const BIN = fileURLToPath(new URL('../../bin/mnemara.js', import.meta.url));
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let run1: SessionResult;
let run1Out: { stdout: string; stderr: string };
/** An untouched copy of the workspace as it was before the run: the "original checkout". */
let original: string;

function mnemara(args: string[], env: Record<string, string> = {}, options: { cwd?: string; input?: string } = {}) {
  return execa(process.execPath, [BIN, ...args], {
    stripFinalNewline: false, // a patch's last newline is part of it
    env: { PATH: process.env.PATH ?? '', MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ...env },
    extendEnv: false,
    reject: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });

beforeAll(async () => {
  dirs = scratch();
  // A binary file and an executable script in the checkout: the patch must carry both kinds.
  writeFileSync(join(dirs.workspace, 'logo.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
  git(dirs.workspace, 'init', '-q');
  git(dirs.workspace, 'add', '-A');
  git(dirs.workspace, 'commit', '-qm', 'start');
  original = join(dirs.root, 'original');
  execFileSync('cp', ['-a', dirs.workspace, original]);
  // Files older than the run, as a checkout made before it is: `apply` compares times with the run's start.
  const past = new Date(Date.now() - 60_000);
  for (const dir of [dirs.workspace, original]) {
    execFileSync('find', [dir, '-exec', 'touch', '-h', '-d', past.toISOString(), '{}', '+']);
  }
  server = await startMessagesServer(policy(FIX_BUG));
  const r = await mnemara(['run', '-w', dirs.workspace, '--task', FIX_BUG.task], { ANTHROPIC_BASE_URL: server.url });
  expect(r.exitCode, r.stderr).toBe(0);
  run1Out = { stdout: r.stdout, stderr: r.stderr };
  const j = await mnemara(['snapshot', 'list', '-w', dirs.workspace, '--json']);
  const listed = JSON.parse(j.stdout) as { lineage: string; heads: Record<string, string> };
  // The default lineage is the directory's name plus a hash of its path (no git remote here).
  expect(listed.lineage).toMatch(/^durations-[0-9a-f]{8}$/);
  run1 = { head: listed.heads[listed.lineage], lineage: listed.lineage } as SessionResult;
}, 240_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

// Every case starts `mnemara` processes; on a loaded two-core machine one start takes seconds.
describe('after a run on -w DIR', { timeout: 180_000 }, () => {
  it("the summary says the host directory was not changed, where the result is, and how to bring it back", () => {
    expect(run1Out.stdout).toContain(`was not changed: the result is snapshot ${run1.head}, the head of lineage ${run1.lineage}.`);
    expect(run1Out.stdout).toMatch(/see it: +mnemara snapshot patch \S+ -w /);
    expect(run1Out.stdout).toContain(`bring it: mnemara apply -w `);
    expect(run1Out.stdout).toContain(`--lineage ${run1.lineage}`);
    // The host directory really is unchanged.
    expect(readFileSync(join(dirs.workspace, 'src/durations/parse.py'), 'utf8')).toBe(readFileSync(join(original, 'src/durations/parse.py'), 'utf8'));
  });

  it("memory show/search -w DIR read the directory's lineage head and say so", async () => {
    const show = await mnemara(['memory', 'show', '-w', dirs.workspace]);
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain(`memory of lineage ${run1.lineage} (head ${run1.head}), the lineage of ${dirs.workspace}, which holds no memory of its own: 2 entries`);
    expect(show.stdout).toContain('Run the tests with `./scripts/check.sh`');
    // Run 1's agent ended on "Note: run the tests with `./scripts/check.sh` (it sets PYTHONPATH=src) …": its own note.
    expect(show.stdout).toContain('it sets PYTHONPATH=src');
    const search = await mnemara(['memory', 'search', 'tests', '-w', dirs.workspace]);
    expect(search.exitCode).toBe(0);
    expect(search.stdout).toContain('./scripts/check.sh');
    const list = await mnemara(['snapshot', 'list', '-w', dirs.workspace]);
    expect(list.stdout.split('\n')[0]).toBe(`lineage ${run1.lineage} (of ${dirs.workspace})`);
  });

  it('with no argument, memory show lists the lineages of the store', async () => {
    const empty = join(dirs.root, 'elsewhere');
    mkdirSync(empty);
    const r = await mnemara(['memory', 'show'], {}, { cwd: empty });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`no memory in ${empty}; lineages in ${join(dirs.home, 'store')}:`);
    expect(r.stdout).toMatch(new RegExp(`^ {2}${run1.lineage} +head ${run1.head}$`, 'm'));
    // Named explicitly, a directory without memory or lineage is the user's input: exit 2 with the lineages.
    const named = await mnemara(['memory', 'show', '-w', empty]);
    expect(named.exitCode).toBe(2);
    expect(named.stderr).toMatch(/holds no memory, and its lineage elsewhere-[0-9a-f]{8} has no snapshot/);
    expect(named.stderr).toContain('durations');
  });

  it('memory show --lineage --json points to no temporary folder', async () => {
    const r = await mnemara(['memory', 'show', '--lineage', run1.lineage, '--json']);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc.memoriesDir).toBeNull();
    expect(doc).toMatchObject({ source: 'lineage', lineage: run1.lineage, snapshot: run1.head });
    expect(r.stdout).not.toMatch(/mnemara-memory-/);
  });

  it('snapshot patch of the run applies cleanly with git apply to the original checkout, leaving memory out', async () => {
    const p = await mnemara(['snapshot', 'patch', run1.head as string, '-w', original]);
    expect(p.exitCode, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/^diff --git a\/src\/durations\/parse\.py b\/src\/durations\/parse\.py$/m);
    expect(p.stdout).toContain('+        total += int(number) * UNITS[unit]');
    expect(p.stdout).not.toMatch(/memories\/|sessions\/|\.git\/|__pycache__/);
    const target = join(dirs.root, 'apply-here');
    execFileSync('cp', ['-a', original, target]);
    execFileSync('git', ['apply', '--check', '-'], { cwd: target, input: p.stdout });
    execFileSync('git', ['apply', '-'], { cwd: target, input: p.stdout });
    expect(git(target, 'status', '--porcelain').trim()).toBe('M src/durations/parse.py');
  });

  it('apply writes the run into the host directory, and refuses when the host changed since the run started', async () => {
    const changed = join(dirs.root, 'changed');
    execFileSync('cp', ['-a', original, changed]);
    writeFileSync(join(changed, 'README.md'), 'my own edit\n');
    const refused = await mnemara(['apply', '-w', changed, '--lineage', run1.lineage]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('changed after the run started');
    expect(refused.stderr).toContain('README.md');
    expect(readFileSync(join(changed, 'src/durations/parse.py'), 'utf8')).not.toContain('total +=');

    const ok = await mnemara(['apply', '-w', dirs.workspace]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('1 changed');
    expect(readFileSync(join(dirs.workspace, 'src/durations/parse.py'), 'utf8')).toContain('total += int(number)');
    expect(readdirSync(dirs.workspace)).not.toContain('memories');
  });
});

describe('binary files and modes in a patch between two snapshots', { timeout: 180_000 }, () => {
  it('carries a binary file as GIT binary patch and an executable bit, and git apply takes it', async () => {
    const tree = join(dirs.root, 'bin-tree');
    mkdirSync(tree);
    writeFileSync(join(tree, 'data.bin'), Buffer.from([0, 1, 2, 3]));
    writeFileSync(join(tree, 'run.sh'), '#!/bin/sh\necho hi\n');
    const a = JSON.parse((await mnemara(['snapshot', 'create', tree, '--lineage', 'bin', '--json'])).stdout) as { head: string };
    const before = join(dirs.root, 'bin-before');
    execFileSync('cp', ['-a', tree, before]);
    writeFileSync(join(tree, 'data.bin'), Buffer.from([0, 255, 254, 0, 9]));
    execFileSync('chmod', ['+x', join(tree, 'run.sh')]);
    mkdirSync(join(tree, 'memories'));
    writeFileSync(join(tree, 'memories', 'MEMORY.md'), '# Memory\n');
    const b = JSON.parse((await mnemara(['snapshot', 'create', tree, '--lineage', 'bin', '--json'])).stdout) as { head: string };
    const p = await mnemara(['snapshot', 'patch', a.head, b.head]);
    expect(p.exitCode, p.stderr).toBe(0);
    expect(p.stdout).toContain('GIT binary patch');
    expect(p.stdout).toContain('new mode 100755');
    expect(p.stdout).not.toContain('memories');
    execFileSync('git', ['apply', '-'], { cwd: before, input: p.stdout });
    expect(readFileSync(join(before, 'data.bin'))).toEqual(Buffer.from([0, 255, 254, 0, 9]));
  });
});

describe('messages that did not help (issue 11), each with its exit code', { timeout: 180_000 }, () => {
  it('run --network bogus: exit 2, names the network and what exists; no transcript path is printed', async () => {
    const r = await mnemara(['run', '-w', dirs.workspace, '--task', 'x', '--network', 'bogus', '--lineage', 'net'], { ANTHROPIC_BASE_URL: server.url });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('there is no Docker network "bogus"');
    expect(r.stderr).toContain('docker network ls');
    expect(r.stderr).not.toContain('transcript');
    // The engine's raw answer ("(HTTP code 404) no such network") must not leak; a rollout id is a
    // timestamp and may hold the digits 404, so only a standalone status code counts.
    expect(r.stderr).not.toMatch(/HTTP code|(?<![\w.])404(?![\w.])/);
  });

  it('an empty --task-file says the file is empty', async () => {
    const file = join(dirs.root, 'empty-task.md');
    writeFileSync(file, '  \n');
    const r = await mnemara(['run', '-w', dirs.workspace, '--task-file', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`--task-file ${file} holds no task: it is empty`);
    expect(r.stderr).not.toContain('no task given');
  });

  it('snapshot verify of an unknown id is not found (exit 2), not "0/1 ok"', async () => {
    const r = await mnemara(['snapshot', 'verify', '20200101T000000000Z-00000000']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('snapshot 20200101T000000000Z-00000000 not found');
    expect(r.stdout).not.toContain('ok');
  });

  it('--set sandbox.pidsLimit=-5 names the real minimum; --model "" is refused', async () => {
    const pids = await mnemara(['config', '--set', 'sandbox.pidsLimit=-5']);
    expect(pids.exitCode).toBe(2);
    expect(pids.stderr).toContain('hint: sandbox.pidsLimit must be a whole number ≥ 16.');
    const model = await mnemara(['run', '-w', dirs.workspace, '--task', 'x', '--model', '']);
    expect(model.exitCode).toBe(2);
    expect(model.stderr).toContain('invalid agent.model = "" (from flag --model)');
  });

  it('gc --grace 0 names the snapshot it removed and why', async () => {
    const store = join(dirs.home, 'store');
    const id = '20200101T000000000Z-0000dead';
    mkdirSync(join(store, 'snapshots', id), { recursive: true });
    writeFileSync(join(store, 'snapshots', id, 'manifest.json'), '{"not": "a manifest"');
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(store, 'snapshots', id), old, old);
    const r = await mnemara(['snapshot', 'gc', '--grace', '0']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ {2}snapshot ${id}: manifest unreadable: `, 'm'));
  });

  it('doctor labels binary sizes MiB/GiB', async () => {
    const r = await mnemara(['doctor']);
    expect(r.stdout).toMatch(/GiB free at /);
    expect(r.stdout).not.toMatch(/\d GB free|\d MB\)/);
  });
});
