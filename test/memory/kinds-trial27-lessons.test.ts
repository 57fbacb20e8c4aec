/**
 * New-user trial 27: the deterministic extractor missed the lessons of imported sessions outside Claude Code, and
 * of a failed run. Each test failed before its rule (the inputs are written for these tests: other tools, projects
 * and languages than the trial's files), through the real importers where the format matters:
 * - another program doing the same step (`make check` had no such target, then `yarn build && yarn test`
 *   passed; `tox` could not run, the agent said to use `nox -s tests`): a failure and its fix (`linked.ts`);
 * - a test run that failed on its assertions and passed with options added is a way to run the tests, not a check
 *   changed, when the agent says the tests need those options (`cargo test --features sqlite`);
 * - a run that ended with its work still failing, whose final message names a step it never took as needed, gives
 *   a hedged lesson ("not verified"), in whatever language (`failed-next.ts`).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { importTranscriptFile } from '../../src/transcript/importers/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The lessons the deterministic extractor takes from a file in any supported format. */
async function lessonsOf(name: string, lines: unknown[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-t27-'));
  const file = join(dir, name);
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const { records } = await importTranscriptFile(file);
  return extractDeterministic(viewRollout(records, 'r')).map((m) => m.text);
}

const texts = (b: TranscriptBuilder): string[] => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);

/** A Codex CLI rollout: one shell call per command, its output and exit code in the function call's output. */
function codexRollout(id: string, task: string, calls: Array<{ cmd: string; exit: number; out: string }>, final: string): unknown[] {
  const ts = '2026-02-10T09:00:00Z';
  const lines: unknown[] = [
    { timestamp: ts, type: 'session_meta', payload: { id, timestamp: ts, cwd: '/home/dev/kestrel', originator: 'codex_cli_rs', cli_version: '0.21.0', instructions: null } },
    { timestamp: ts, type: 'turn_context', payload: { cwd: '/home/dev/kestrel', approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model: 'gpt-5', effort: 'medium', summary: 'auto' } },
    { timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: task }] } },
  ];
  calls.forEach((c, i) => {
    lines.push({ timestamp: ts, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', c.cmd] }), call_id: `c${i}` } });
    lines.push({ timestamp: ts, type: 'response_item', payload: { type: 'function_call_output', call_id: `c${i}`, output: JSON.stringify({ output: c.out, metadata: { exit_code: c.exit, duration_seconds: 1.5 } }) } });
  });
  lines.push({ timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: final }] } });
  lines.push({ timestamp: ts, type: 'event_msg', payload: { type: 'task_complete', last_agent_message: final } });
  return lines;
}

/** An OpenHands event stream: run actions and their observations, then the finish action with its final thought. */
function openHandsEvents(task: string, calls: Array<{ cmd: string; exit: number; out: string }>, final: string): unknown[] {
  const lines: unknown[] = [{ id: 0, timestamp: '2026-02-11T08:00:00', source: 'user', message: task, action: 'message', args: { content: task } }];
  let id = 1;
  for (const c of calls) {
    lines.push({ id, timestamp: '2026-02-11T08:00:05', source: 'agent', message: `Running command: ${c.cmd}`, action: 'run', args: { command: c.cmd } });
    lines.push({ id: id + 1, timestamp: '2026-02-11T08:00:09', source: 'agent', message: 'Command finished', observation: 'run', cause: id, content: c.out, extras: { command: c.cmd, metadata: { exit_code: c.exit } } });
    id += 2;
  }
  lines.push({ id, timestamp: '2026-02-11T08:01:00', source: 'agent', message: 'Done', action: 'finish', args: { final_thought: final } });
  return lines;
}

/** A Claude Code session: Bash tool uses and their results (no exit code, only `is_error`), then a final text. */
function claudeCodeSession(task: string, calls: Array<{ cmd: string; error: boolean; out: string }>, final: string): unknown[] {
  const base = { sessionId: '9a8b7c6d-0000-4000-8000-000000000027', cwd: '/home/dev/orbit', version: '1.0.90', type: 'user' };
  const lines: unknown[] = [{ ...base, uuid: 'u0', parentUuid: null, timestamp: '2026-02-12T07:00:00Z', message: { role: 'user', content: task } }];
  calls.forEach((c, i) => {
    lines.push({ ...base, type: 'assistant', uuid: `a${i}`, parentUuid: `u${i}`, timestamp: '2026-02-12T07:00:05Z', message: { id: `m${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'tool_use', id: `tu${i}`, name: 'Bash', input: { command: c.cmd } }] } });
    lines.push({ ...base, uuid: `u${i + 1}`, parentUuid: `a${i}`, timestamp: '2026-02-12T07:00:09Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${i}`, content: c.out, is_error: c.error }] } });
  });
  lines.push({ ...base, type: 'assistant', uuid: 'az', parentUuid: `u${calls.length}`, timestamp: '2026-02-12T07:05:00Z', message: { id: 'mz', type: 'message', role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'text', text: final }] } });
  return lines;
}

describe('another program doing the same step is the fix of a failure', () => {
  it('Codex: `make check` has no such target, `yarn build && yarn test` passed (German final message)', async () => {
    const lessons = await lessonsOf(
      'rollout-2026-02-10T09-00-00-01a2b3c4-0000-4000-8000-000000000001.jsonl',
      codexRollout('01a2b3c4-0000-4000-8000-000000000001', 'Bring die Tests zum Laufen.', [
        { cmd: 'make check', exit: 2, out: "make: *** No rule to make target 'check'.  Stop.\n" },
        { cmd: 'yarn build && yarn test', exit: 0, out: 'Done in 3.1s.\n 31 passing (1s)\n' },
      ], 'Die Tests laufen.'),
    );
    const fix = lessons.filter((t) => t.includes('`make check` failed'));
    expect(fix).toHaveLength(1);
    expect(fix[0]).toContain('No rule to make target');
    expect(fix[0]).toContain('`yarn test`');
    expect(fix[0]).toContain('`yarn build`');
  });

  it('OpenHands: `tox` could not run, the agent said to use `nox -s tests` (Portuguese), which passed', async () => {
    const lessons = await lessonsOf('events.jsonl', openHandsEvents('Rode os testes do parser.', [
      { cmd: 'tox -e py312', exit: 1, out: 'py312: skipped because could not find python interpreter with spec(s): py312\n  py312: SKIP (0.01 seconds)\n  evaluation failed :( (0.08 seconds)' },
      { cmd: 'nox -s tests', exit: 0, out: 'nox > Session tests was successful.' },
    ], 'Os testes passam. Neste repositório é preciso usar `nox -s tests` em vez de tox.'));
    const fix = lessons.filter((t) => t.includes('`tox -e py312` failed'));
    expect(fix).toHaveLength(1);
    expect(fix[0]).toContain('`nox -s tests`');
  });

  it('a test step that has no script in one tool and runs in another (`npm run test` → `npx vitest run`), no words needed', () => {
    const b = new TranscriptBuilder('Lägg till ett test för datumformatet.')
      .bash('cd /workspace && npm run test', 1, 'npm error Missing script: "test"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run')
      .bash('cd /workspace && npx vitest run', 0, ' Test Files  4 passed (4)\n      Tests  19 passed (19)')
      .say('Klart.');
    const fix = texts(b).filter((t) => t.includes('`npm run test` failed'));
    expect(fix).toHaveLength(1);
    expect(fix[0]).toContain('npx vitest run');
  });

  it('not: another tool run as a fallback after the first could not work, named only as passing', () => {
    const b = new TranscriptBuilder('Add the bookworm platform and check it.')
      .bash('cd /workspace && kitchen test', 1, '>>>>>> ------Exception-------\n>>>>>> Class: Kitchen::ActionFailed\n>>>>>> Message: Failed to complete #create action: [Cannot connect to the Docker daemon]')
      .bash('cd /workspace && cookstyle', 0, '12 files inspected, no offenses detected')
      .say('Partial: the platform is added but not converged. `cookstyle` passes; `kitchen test` cannot reach Docker here.');
    expect(texts(b).filter((t) => t.includes('`kitchen test` failed') && t.includes('cookstyle'))).toEqual([]);
  });

  it('not: a failure on the tests\' own assertions, then another test tool of the project passing, with nothing said', () => {
    const b = new TranscriptBuilder('Fix the rounding in totals.')
      .bash('cd /workspace && python -m pytest -q', 1, 'F..\nE       assert 10.0 == 10.01\nFAILED tests/test_totals.py::test_round - assert 10.0 == 10.01\n1 failed, 2 passed in 0.2s')
      .bash('cd /workspace && npm test', 0, 'Tests: 8 passed, 8 total')
      .say('Done.');
    expect(texts(b).filter((t) => /In this environment|What worked/.test(t))).toEqual([]);
  });
});

describe('options the agent says the tests need are how they run, not a check changed', () => {
  it('OpenHands: `cargo test` failed on its assertions, `cargo test --features sqlite` passed, the final thought in French says why', async () => {
    const lessons = await lessonsOf('oh.json.jsonl', openHandsEvents('Corrige le test du stockage.', [
      { cmd: 'cargo test', exit: 101, out: "running 3 tests\ntest store::tests::roundtrip ... FAILED\n\nfailures:\n\n---- store::tests::roundtrip stdout ----\nthread 'store::tests::roundtrip' panicked at src/store.rs:88:9:\nassertion `left == right` failed\n\ntest result: FAILED. 2 passed; 1 failed" },
      { cmd: 'cargo test --features sqlite', exit: 0, out: 'running 3 tests\ntest result: ok. 3 passed; 0 failed' },
    ], 'Les tests ont besoin de `--features sqlite`.'));
    const fix = lessons.filter((t) => t.includes('`cargo test` failed'));
    expect(fix).toHaveLength(1);
    expect(fix[0]).toContain('`cargo test --features sqlite`');
  });

  it('not: a snapshot update (`-u`) the agent only reports', () => {
    const b = new TranscriptBuilder('Change the label to "Save".')
      .bash('cd /workspace && npx jest src/form', 1, ' FAIL  src/form/Form.test.tsx\n  ● Form › renders\n    expect(received).toMatchSnapshot()\nTests:       1 failed, 2 passed, 3 total')
      .bash('cd /workspace && npx jest src/form -u', 0, 'Snapshots:   1 updated, 1 total\nTests:       3 passed, 3 total')
      .say('Updated the snapshot with `-u`.');
    expect(texts(b).filter((t) => /In this environment|What worked/.test(t))).toEqual([]);
  });
});

describe('a failed run whose final message names the step needed next gives a hedged lesson', () => {
  it('Claude Code (Russian): `pnpm build` failed to the end; the final message says `pnpm codegen` is needed first', async () => {
    const out = "src/api/client.ts(3,24): error TS2307: Cannot find module './generated/schema' or its corresponding type declarations.";
    const lessons = await lessonsOf('session.jsonl', claudeCodeSession('Почини сборку.', [
      { cmd: 'pnpm build', error: true, out },
      { cmd: 'pnpm build', error: true, out },
    ], 'Не удалось починить сборку. Нужно сначала выполнить `pnpm codegen`, но я этого не проверил.'));
    const hedged = lessons.filter((t) => t.includes('`pnpm codegen`'));
    expect(hedged).toHaveLength(1);
    // "Не удалось починить сборку" (could not fix the build) after the failures: since trial 28 the importer
    // stores that run as unfinished (`importers/ended.ts`), so the step named next is kept, in the agent's words,
    // in the unfinished task beside the failure it did not overcome.
    expect(hedged[0]).toMatch(/^Unfinished \(the agent stopped on purpose\)/);
    expect(hedged[0]).toContain('Unresolved: `pnpm build` failed');
  });

  it('Japanese, Maven: the step named as necessary (必要)', () => {
    const b = new TranscriptBuilder('テストを直してください。')
      .bash('cd /workspace && mvn -q test', 1, '[ERROR] COMPILATION ERROR :\n[ERROR] /workspace/src/main/java/app/Api.java:[5,20] package app.gen does not exist\n[ERROR] BUILD FAILURE')
      .bash('cd /workspace && mvn -q test', 1, '[ERROR] COMPILATION ERROR :\n[ERROR] /workspace/src/main/java/app/Api.java:[5,20] package app.gen does not exist\n[ERROR] BUILD FAILURE')
      .say('直せませんでした。先に `mvn generate-sources` が必要です。');
    const hedged = texts(b).filter((t) => t.includes('`mvn generate-sources`'));
    expect(hedged).toHaveLength(1);
    expect(hedged[0]).toMatch(/not verified/);
  });

  it('not: a step the run already took, a run whose last check passed, or a sentence that names no need', () => {
    const ran = new TranscriptBuilder('Fix the build.')
      .bash('cd /workspace && make', 2, 'gcc: error: gen/parser.c: No such file or directory')
      .bash('cd /workspace && make gen', 2, 'bison: command not found')
      .bash('cd /workspace && make', 2, 'gcc: error: gen/parser.c: No such file or directory')
      .say('I could not fix it: `make gen` is needed first and needs bison.');
    expect(texts(ran).filter((t) => t.includes('still failed'))).toEqual([]);
    const passed = new TranscriptBuilder('Fix the build.')
      .bash('cd /workspace && make', 2, 'gcc: error: gen/parser.c: No such file or directory')
      .bash('cd /workspace && make all', 0, 'ok')
      .say('Works now; `make docs` needs pandoc though.');
    expect(texts(passed).filter((t) => t.includes('still failed'))).toEqual([]);
    const plain = new TranscriptBuilder('Fix the build.')
      .bash('cd /workspace && cargo build', 101, 'error[E0425]: cannot find value `x` in this scope')
      .say('I could not fix it. Running `cargo clean` did not help either.');
    expect(texts(plain).filter((t) => t.includes('still failed'))).toEqual([]);
  });
});

describe('mnemara learn --deterministic on an imported Codex rollout', { timeout: 120_000 }, () => {
  it('stores the failure and the other program that fixed it in MEMORY.md', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mnemara-t27-cli-'));
    const file = join(dir, 'rollout-2026-02-10T09-00-00-01a2b3c4-0000-4000-8000-000000000002.jsonl');
    const lines = codexRollout('01a2b3c4-0000-4000-8000-000000000002', 'Haz que pase el build.', [
      { cmd: 'make test', exit: 2, out: "make: *** No rule to make target 'test'.  Stop.\n" },
      { cmd: 'pnpm install && pnpm test', exit: 0, out: 'Done in 2s\n 12 passed\n' },
    ], 'Listo: no hay target de make; usa `pnpm test`.');
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const ws = join(dir, 'ws');
    await (await import('node:fs/promises')).mkdir(ws);
    const run = spawnSync('npx', ['tsx', join(ROOT, 'src/cli/main.ts'), 'learn', file, '-w', ws, '--deterministic', '--json'], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, MNEMARA_HOME: join(dir, 'home'), ANTHROPIC_API_KEY: '' } });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(run.stdout) as { formats: Array<{ format: string; lessons: number }> };
    expect(report.formats).toMatchObject([{ format: 'codex' }]);
    expect(report.formats[0]!.lessons).toBeGreaterThan(0);
    const memory = await readFile(join(ws, 'memories', 'MEMORY.md'), 'utf8');
    expect(memory).toContain('make test');
    expect(memory).toContain('pnpm test');
  });
});
