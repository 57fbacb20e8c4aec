/**
 * New-user trial 28: imported runs that gave no lesson, or the wrong words. Each test failed before its fix (the
 * inputs are written for these tests: other projects, commands and languages than the trial's files):
 * - an Agents SDK `function_call_output` whose text is Codex's JSON `{output, metadata: {exit_code}}` lost its exit
 *   code, so a failure looked like a success (`wrapped-output.ts`);
 * - a run that ends with the agent saying it did not get the task done, after a failure, was stored as `completed`
 *   by every importer whose format has no status of its own (Codex, Agents SDK items, Gemini CLI), and gave no
 *   lesson; now the outcome is derived the same way for all (`ended.ts`) and the unfinished task is kept;
 * - a final message that names the next step ("Next step: …", "El siguiente paso es …") with no word of need;
 * - an OpenHands run stopped by its controller ("max iterations") was called "stopped on purpose";
 * - a step the tool could not run at all (no such make target, no such script), a code edit, then another
 *   program doing the step: the edit cannot have made the step appear, so the pair is still the lesson.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { importTranscriptFile } from '../../src/transcript/importers/index.js';
import type { TranscriptRecord } from '../../src/transcript/schema.js';
import { TranscriptBuilder } from './phase1/build.js';

type Call = { cmd: string; exit: number; out: string };

/** Imports `content` (JSONL lines, or one JSON document) written to a file named `name`: format, outcome, lessons. */
async function imported(name: string, content: unknown[] | object): Promise<{ format: string; outcome: string; error?: string; results: Extract<TranscriptRecord, { type: 'tool_result' }>[]; lessons: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-t28-'));
  const file = join(dir, name);
  await writeFile(file, Array.isArray(content) ? content.map((l) => JSON.stringify(l)).join('\n') + '\n' : JSON.stringify(content, null, 1));
  const { format, records } = await importTranscriptFile(file);
  const end = records.map((r) => r.record).find((r): r is Extract<TranscriptRecord, { type: 'session_end' }> => r.type === 'session_end')!;
  const results = records.map((r) => r.record).filter((r): r is Extract<TranscriptRecord, { type: 'tool_result' }> => r.type === 'tool_result');
  return { format, outcome: end.outcome, ...(end.error ? { error: end.error } : {}), results, lessons: extractDeterministic(viewRollout(records, 'r')).map((m) => m.text) };
}

/** A Codex CLI rollout: shell calls whose outputs are Codex's JSON text, a final message, `task_complete`. */
function codexRollout(task: string, calls: Call[], final: string): unknown[] {
  const ts = '2026-04-02T08:00:00Z';
  const lines: unknown[] = [
    { timestamp: ts, type: 'session_meta', payload: { id: '0b1c2d3e-0000-4000-8000-000000000028', timestamp: ts, cwd: '/home/ana/tidewater', originator: 'codex_cli_rs', cli_version: '0.50.0' } },
    { timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: task }] } },
  ];
  calls.forEach((c, i) => {
    lines.push({ timestamp: ts, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', c.cmd] }), call_id: `k${i}` } });
    lines.push({ timestamp: ts, type: 'response_item', payload: { type: 'function_call_output', call_id: `k${i}`, output: JSON.stringify({ output: c.out, metadata: { exit_code: c.exit, duration_seconds: 0.4 } }) } });
  });
  lines.push({ timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: final }] } });
  lines.push({ timestamp: ts, type: 'event_msg', payload: { type: 'task_complete', last_agent_message: final } });
  return lines;
}

/** Agents SDK run items (`to_input_list()`): a Codex-style `shell` function tool, its JSON text output. */
function sdkItems(task: string, calls: Array<Call & { wrap?: (c: Call) => string }>, final: string): unknown[] {
  const items: unknown[] = [{ role: 'user', content: task }];
  calls.forEach((c, i) => {
    items.push({ type: 'function_call', call_id: `s${i}`, name: 'shell', arguments: JSON.stringify({ command: c.cmd }) });
    items.push({ type: 'function_call_output', call_id: `s${i}`, output: c.wrap ? c.wrap(c) : JSON.stringify({ output: c.out, metadata: { exit_code: c.exit } }) });
  });
  items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: final }] });
  return items;
}

/** A Gemini CLI saved chat: one gemini message per shell command, then the final answer. */
function geminiChat(task: string, calls: Call[], final: string): object {
  const at = (s: number) => `2026-04-03T09:00:${String(s).padStart(2, '0')}.000Z`;
  const messages: unknown[] = [{ id: 'u1', timestamp: at(1), type: 'user', content: task }];
  calls.forEach((c, i) => {
    const output = `Command: ${c.cmd}\nDirectory: (root)\nOutput: ${c.out}\nError: (none)\nExit Code: ${c.exit}\nSignal: (none)`;
    messages.push({ id: `g${i}`, timestamp: at(2 + i), type: 'gemini', content: '', toolCalls: [{ id: `c${i}`, name: 'run_shell_command', args: { command: c.cmd }, status: c.exit === 0 ? 'success' : 'error', timestamp: at(2 + i), result: [{ functionResponse: { id: `c${i}`, name: 'run_shell_command', response: { output } } }] }] });
  });
  messages.push({ id: 'gz', timestamp: at(30), type: 'gemini', content: final });
  return { sessionId: 'gem-t28', projectHash: 'f00d', startTime: at(0), lastUpdated: at(30), messages };
}

const MAKE_FAIL = "make: *** No rule to make target 'check'.  Stop.\n";
const CARGO_FAIL = 'error: failed to run custom build command for `openssl-sys v0.9.104`\n  Could not find directory of OpenSSL installation';

describe('Agents SDK items: the exit code inside a Codex-style JSON output', () => {
  it('`{output, metadata: {exit_code}}` and a top-level `exit_code`/`exitCode` set the exit code and the failure; the pair becomes a lesson', async () => {
    const run = await imported('items.jsonl', sdkItems('Haz que pasen las comprobaciones.', [
      { cmd: 'make check', exit: 2, out: MAKE_FAIL },
      { cmd: 'pnpm test', exit: 0, out: ' Tests  9 passed (9)\n', wrap: (c) => JSON.stringify({ output: c.out, exit_code: c.exit }) },
      { cmd: 'pnpm lint', exit: 1, out: '1 problem', wrap: (c) => JSON.stringify({ output: c.out, exitCode: c.exit }) },
    ], 'Hecho: `make check` no existe; las pruebas van con `pnpm test`.'));
    expect(run.results.map((r) => [r.output, r.isError, r.exitCode])).toEqual([[MAKE_FAIL, true, 2], [' Tests  9 passed (9)\n', false, 0], ['1 problem', true, 1]]);
    expect(run.lessons.filter((t) => t.includes('`make check` failed') && t.includes('`pnpm test`'))).toHaveLength(1);
  });

  it('hostile or other JSON is left as text: more after the object, no string output, a non-integer code', async () => {
    const run = await imported('items.jsonl', sdkItems('go', [
      { cmd: 'cat a.json', exit: 0, out: '', wrap: () => '{"output": "x", "metadata": {"exit_code": 3}} and more' },
      { cmd: 'cat b.json', exit: 0, out: '', wrap: () => '{"output": ["x"], "exit_code": 4}' },
      { cmd: 'cat c.json', exit: 0, out: '', wrap: () => '{"output": "y", "exit_code": "5"}' },
    ], 'ok'));
    expect(run.results.map((r) => r.exitCode)).toEqual([undefined, undefined, undefined]);
    expect(run.results[0]!.output).toContain('and more');
  });
});

describe('a run that ends saying it did not finish, after a failure, is not `completed` in any format without a status', () => {
  const calls: Call[] = [
    { cmd: 'cargo build', exit: 101, out: CARGO_FAIL },
    { cmd: 'cargo test', exit: 101, out: CARGO_FAIL },
  ];
  const pt = 'Não consegui terminar: falta o OpenSSL. O próximo passo é rodar `sudo apt-get install -y libssl-dev pkg-config` e depois `cargo build` de novo.';
  const en = 'I was unable to finish: OpenSSL is missing. Next step: `sudo apt-get install -y libssl-dev pkg-config`, then `cargo build` again.';

  it.each([
    ['Codex (Portuguese)', 'rollout-2026-04-02T08-00-00-0b1c2d3e.jsonl', codexRollout('Compile e teste o projeto.', calls, pt), 'codex'],
    ['Codex (English)', 'rollout-2026-04-02T08-00-00-0b1c2d3e.jsonl', codexRollout('Build and test.', calls, en), 'codex'],
    ['Agents SDK items (English)', 'items.jsonl', sdkItems('Build and test.', calls, en), 'agents-sdk'],
    ['Gemini CLI (Portuguese)', 'session-2026-04-03T09-00-f00d.json', geminiChat('Compile e teste o projeto.', calls, pt), 'gemini-cli'],
  ])('%s: outcome error, and the unfinished task with the next step in the agent\'s words', async (_name, file, content, format) => {
    const run = await imported(file, content);
    expect(run.format).toBe(format);
    expect(run.outcome).toBe('error');
    expect(run.error).toBeUndefined();
    const unfinished = run.lessons.filter((t) => t.startsWith('Unfinished (the agent stopped on purpose)'));
    expect(unfinished).toHaveLength(1);
    expect(unfinished[0]).toContain('`cargo build` failed');
    expect(run.lessons.join('\n')).toContain('libssl-dev');
  });

  it('still `completed`: the same failure fixed and said so, or a final message that says nothing of not finishing', async () => {
    const fixed = await imported('items.jsonl', sdkItems('Build.', [...calls, { cmd: 'cargo build', exit: 0, out: 'Finished dev' }], 'Done: the build failed at first, now it passes.'));
    expect(fixed.outcome).toBe('completed');
    const quiet = await imported('rollout-2026-04-02T08-00-00-0b1c2d3e.jsonl', codexRollout('Build.', calls, 'The build needs OpenSSL headers.'));
    expect(quiet.outcome).toBe('completed');
    // Words of not finishing with no failure in the run: nothing says the work failed.
    const noFailure = await imported('items.jsonl', sdkItems('Summarise the README.', [{ cmd: 'cat README.md', exit: 0, out: '# tidewater' }], 'I could not finish reading every linked page, but here is the summary.'));
    expect(noFailure.outcome).toBe('completed');
  });

  it('a completed run whose final message names the next step (no word of need) gives the hedged next-step lesson', () => {
    const b = new TranscriptBuilder('Construye el proyecto.')
      .bash('cd /workspace && cargo build', 101, CARGO_FAIL)
      .say('La compilación falla por OpenSSL. El siguiente paso es `sudo apt-get install -y libssl-dev`.');
    const hedged = extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text).filter((t) => t.includes('still failed when this run ended'));
    expect(hedged).toHaveLength(1);
    expect(hedged[0]).toContain('`sudo apt-get install -y libssl-dev`');
    expect(hedged[0]).toMatch(/not verified/);
  });
});

describe('OpenHands: the wording of an unfinished run follows what stopped it', () => {
  const events = (reason: string): unknown[] => [
    { id: 0, timestamp: '2026-04-04T07:00:00', source: 'user', message: 'Build the docs.', action: 'message', args: { content: 'Build the docs.' } },
    { id: 1, timestamp: '2026-04-04T07:00:01', source: 'agent', message: 'Running command: mkdocs build', action: 'run', args: { command: 'mkdocs build' } },
    { id: 2, timestamp: '2026-04-04T07:00:02', source: 'agent', message: 'exit 1', cause: 1, observation: 'run', content: "Error: Config value 'theme': Unrecognised theme name: 'material'.", extras: { command: 'mkdocs build', metadata: { exit_code: 1 } } },
    { id: 3, timestamp: '2026-04-04T07:00:03', source: 'agent', message: 'The theme is missing; installing mkdocs-material is needed.', action: 'message', args: { content: 'The theme is missing; installing mkdocs-material is needed.' } },
    { id: 4, timestamp: '2026-04-04T07:00:04', source: 'environment', message: '', observation: 'agent_state_changed', content: '', extras: { agent_state: 'error', reason } },
  ];

  it('"max iterations" is the turn limit, not the agent stopping on purpose', async () => {
    const run = await imported('events.jsonl', events('RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 30, max iteration: 30'));
    expect(run.outcome).toBe('max_turns');
    const unfinished = run.lessons.filter((t) => t.startsWith('Unfinished'));
    expect(unfinished).toHaveLength(1);
    expect(unfinished[0]).toMatch(/^Unfinished \(stopped at the turn limit: RuntimeError: Agent reached maximum iteration/);
  });

  it('another exception is an error, named as such', async () => {
    const run = await imported('events.jsonl', events('ConnectionError: sandbox runtime died'));
    expect(run.outcome).toBe('error');
    expect(run.lessons.filter((t) => t.startsWith('Unfinished'))[0]).toMatch(/^Unfinished \(stopped by an error: ConnectionError: sandbox runtime died\)/);
  });
});

describe('a step the tool could not run, a code edit, then another program doing it', () => {
  const lessonsOf = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);

  it('`npm run check` has no such script, `sed -i` on the code, then `npx vitest run` passes: the pair is the lesson', () => {
    const b = new TranscriptBuilder('Arregla el redondeo y pasa las pruebas.')
      .bash('cd /workspace && npm run check', 1, 'npm error Missing script: "check"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run')
      .bash("cd /workspace && sed -i 's/round(/roundHalfEven(/' src/money.ts", 0, '')
      .bash('cd /workspace && npx vitest run', 0, ' Test Files  3 passed (3)\n      Tests  21 passed (21)')
      .say('Listo.');
    const fix = lessonsOf(b).filter((t) => t.includes('`npm run check` failed'));
    expect(fix).toHaveLength(1);
    expect(fix[0]).toContain('`npx vitest run`');
    expect(fix[0]).not.toContain('money.ts');
  });

  it('the same with an editor edit: `make check` has no such target, then `pytest -q` passes', () => {
    const b = new TranscriptBuilder('Fix the parser.')
      .bash('cd /workspace && make check', 2, MAKE_FAIL)
      .edit('/workspace/tidewater/parse.py')
      .bash('cd /workspace && pytest -q', 0, '12 passed in 0.4s')
      .say('Fixed.');
    const fix = lessonsOf(b).filter((t) => t.includes('`make check` failed'));
    expect(fix).toHaveLength(1);
    expect(fix[0]).toContain('`pytest -q`');
  });

  it('not: a real test failure, a code edit, then another test command passing (a bug fixed in the code)', () => {
    const b = new TranscriptBuilder('Fix the parser.')
      .bash('cd /workspace && make test', 2, 'FAILED tests/test_parse.py::test_dates - assert 1 == 2\n1 failed, 11 passed\nmake: *** [Makefile:4: test] Error 1')
      .edit('/workspace/tidewater/parse.py')
      .bash('cd /workspace && pytest -q', 0, '12 passed in 0.4s')
      .say('Fixed.');
    expect(lessonsOf(b).filter((t) => /In this environment|What worked/.test(t))).toEqual([]);
  });
});
