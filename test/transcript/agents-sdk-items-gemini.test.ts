/**
 * The OpenAI Agents SDK run items (`result.to_input_list()` / `result.history`) and Gemini CLI saved chats
 * (new-user trial: `mnemara learn` refused both). Fixtures: test/fixtures/importers/{agents-sdk-items,gemini-cli},
 * written by make-fixtures.ts from the formats' definitions.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { learnPaths } from '../../src/memory/learn.js';
import { memoryPaths } from '../../src/memory/layout.js';
import { importTranscriptFile, MAX_DOCUMENT_BYTES } from '../../src/transcript/importers/index.js';
import type { TranscriptRecord } from '../../src/transcript/schema.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROOT = join(REPO, 'test', 'fixtures', 'importers');
const det = { extractor: 'deterministic' as const, config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 } };
const ofType = <T extends TranscriptRecord['type']>(records: TranscriptRecord[], type: T) =>
  records.filter((r): r is Extract<TranscriptRecord, { type: T }> => r.type === type);

async function tmp(name = 'mnemara-new-importers-'): Promise<string> {
  return mkdtemp(join(tmpdir(), name));
}
async function importLines(lines: unknown[], name = 'items.jsonl', tail = ''): Promise<{ format: string; records: TranscriptRecord[] }> {
  const p = join(await tmp(), name);
  await writeFile(p, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n' + tail);
  const r = await importTranscriptFile(p);
  return { format: r.format, records: r.records.map((x) => x.record) };
}
async function importDoc(doc: unknown, name = 'doc.json'): Promise<TranscriptRecord[]> {
  const p = join(await tmp(), name);
  await writeFile(p, JSON.stringify(doc, null, 2));
  return (await importTranscriptFile(p)).records.map((x) => x.record);
}
const end = (records: TranscriptRecord[]) => ofType(records, 'session_end')[0]!;

/** The run items the trial saved (`to_input_list()`, one a line). */
const TRIAL = [
  { role: 'user', content: 'Upgrade lodash and run tests' },
  { type: 'function_call', call_id: 'fc1', name: 'run_shell', arguments: '{"cmd": "npm test"}', id: 'fc_1', status: 'completed' },
  { type: 'function_call_output', call_id: 'fc1', output: '12 passing' },
  { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done; `npm test` passes.', annotations: [] }] },
];

describe('OpenAI Agents SDK run items', () => {
  it('reads the trial file, as JSONL and as one JSON array, into a command, its result and the answer', async () => {
    const lines = await importLines(TRIAL);
    const array = await importDoc(TRIAL, 'items.json');
    for (const records of [lines.records, array]) {
      expect(ofType(records, 'session_meta')[0]).toMatchObject({ task: 'Upgrade lodash and run tests', source: 'agents-sdk' });
      expect(ofType(records, 'tool_call')).toMatchObject([{ id: 'fc1', name: 'bash', input: { command: 'npm test' }, turn: 1 }]);
      expect(ofType(records, 'tool_result')).toMatchObject([{ id: 'fc1', name: 'bash', output: '12 passing', isError: false }]);
      expect(ofType(records, 'tool_result')[0]!.exitCode).toBeUndefined();
      expect(ofType(records, 'message').map((m) => [m.role, m.text])).toEqual([['user', 'Upgrade lodash and run tests'], ['assistant', 'Done; `npm test` passes.']]);
      expect(end(records)).toMatchObject({ outcome: 'completed', turns: 2 });
    }
  });

  it('reads the JS SDK shapes: callId, function_call_result with {type: text}, outcome.exitCode, providerData, reasoning, refusal', async () => {
    const { records } = await importLines([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the build' }], providerData: { x: 1 } },
      { type: 'reasoning', content: [{ type: 'input_text', text: 'thinking' }], providerData: { id: 'rs_1' } },
      { type: 'shell_call', callId: 'c1', status: 'completed', action: { commands: ['npm ci', 'npm run build'], timeoutMs: 1000 } },
      { type: 'shell_call_output', callId: 'c1', output: [{ stdout: '', stderr: 'tsc: error TS2304', outcome: { type: 'exit', exitCode: 2 } }] },
      { type: 'function_call', callId: 'c2', name: 'read_file', arguments: '{"path":"src/a.ts"}', status: 'completed', providerData: {} },
      { type: 'function_call_result', name: 'read_file', callId: 'c2', status: 'completed', output: { type: 'text', text: 'export const a = 1;' } },
      { type: 'shell_call', callId: 'c3', status: 'completed', action: { commands: ['sleep 999'] } },
      { type: 'shell_call_output', callId: 'c3', output: [{ stdout: '', stderr: '', outcome: { type: 'timeout' } }] },
      { type: 'hosted_tool_call', name: 'web_search_call', status: 'completed', providerData: { id: 'ws_1' } },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot do that.' }] },
    ]);
    expect(ofType(records, 'tool_call').map((c) => [c.id, c.name, c.input])).toEqual([
      ['c1', 'bash', { command: 'npm ci && npm run build' }],
      ['c2', 'read_file', { path: 'src/a.ts' }],
      ['c3', 'bash', { command: 'sleep 999' }],
    ]);
    expect(ofType(records, 'tool_result').map((r) => [r.id, r.name, r.output, r.isError, r.exitCode])).toEqual([
      ['c1', 'bash', 'tsc: error TS2304', true, 2],
      ['c2', 'read_file', 'export const a = 1;', false, undefined],
      ['c3', 'bash', '', true, undefined],
    ]);
    expect(ofType(records, 'unknown').map((u) => u.sourceType)).toEqual(['reasoning', 'hosted_tool_call']);
    expect(ofType(records, 'message').at(-1)).toMatchObject({ role: 'assistant', text: 'I cannot do that.' });
  });

  it('takes the exit code a shell function tool writes into its text, and a failure its output shows', async () => {
    const { records } = await importLines([
      { role: 'user', content: 'go' },
      { type: 'function_call', call_id: 'a', name: 'run_shell', arguments: '{"cmd":"make"}' },
      { type: 'function_call_output', call_id: 'a', output: 'exit code: 2\nmake: *** No rule to make target' },
      { type: 'function_call', call_id: 'b', name: 'bash', arguments: '{"command":"pytest"}' },
      { type: 'function_call_output', call_id: 'b', output: [{ type: 'input_text', text: 'E   AssertionError\n1 failed, 3 passed' }] },
      { type: 'function_call', call_id: 'c', name: 'lookup', arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'c', output: 'Error: nothing found' },
    ]);
    expect(ofType(records, 'tool_result').map((r) => [r.id, r.isError, r.exitCode])).toEqual([['a', true, 2], ['b', true, undefined], ['c', false, undefined]]);
  });

  it('a run with no final assistant message: completed when it ends on a result, interrupted only with evidence (a cut item, an incomplete message)', async () => {
    const base = TRIAL.slice(0, 3);
    expect(end((await importLines(base)).records)).toMatchObject({ outcome: 'completed' });
    const cut = await importLines(base, 'cut.jsonl', '{"type": "function_call", "call_id": "fc2", "name": "run_sh');
    expect(end(cut.records)).toMatchObject({ outcome: 'interrupted' });
    expect(ofType(cut.records, 'damaged')).toMatchObject([{ reason: expect.stringContaining('cut last line'), fragment: expect.stringContaining('fc2') }]);
    const incomplete = await importLines([...base, { type: 'message', role: 'assistant', status: 'incomplete', content: [{ type: 'output_text', text: 'Now I will' }] }]);
    expect(end(incomplete.records)).toMatchObject({ outcome: 'interrupted' });
  });

  it('the long run: every item kept, three languages intact, the fail-then-fix found', async () => {
    const r = await importTranscriptFile(join(ROOT, 'agents-sdk-items', 'long-run.jsonl'));
    const records = r.records.map((x) => x.record);
    expect(records.length).toBeGreaterThan(600);
    expect(ofType(records, 'tool_call').length).toBeGreaterThan(150);
    const text = ofType(records, 'message').map((m) => m.text).join('\n');
    expect(text).toContain('请把 ferrum 项目升级到 Rust 2024 版本');
    expect(text).toContain('проверяю предупреждения компилятора');
    expect(text).toContain('revisando las advertencias del compilador');
    expect(ofType(records, 'tool_result').filter((t) => t.exitCode === 101)).toHaveLength(1);
  });

  it('the failed run: the same command fails every time and the last message says it could not fix it', async () => {
    const records = (await importTranscriptFile(join(ROOT, 'agents-sdk-items', 'failed-run.json'))).records.map((x) => x.record);
    const tests = ofType(records, 'tool_call').filter((c) => c.name === 'bash').map((c) => c.id);
    const results = ofType(records, 'tool_result').filter((t) => tests.includes(t.id));
    expect(results.length).toBe(5);
    expect(results.every((t) => t.isError && t.exitCode === 1)).toBe(true);
    expect(ofType(records, 'tool_call').filter((c) => c.name === 'str_replace_based_edit_tool')).toHaveLength(4);
    expect(ofType(records, 'message').at(-1)!.text).toMatch(/^I could not fix/);
  });
});

describe('Gemini CLI saved chats', () => {
  const chat = (messages: unknown[]) => ({ sessionId: 'g-1', projectHash: 'ab12', startTime: '2026-06-01T10:00:00.000Z', lastUpdated: '2026-06-01T10:05:00.000Z', messages });
  const call = (id: string, name: string, args: unknown, output: string | undefined, status = 'success') => ({
    id, name, args, status, timestamp: '2026-06-01T10:01:00.000Z', ...(output === undefined ? {} : { result: [{ functionResponse: { id, name, response: status === 'error' ? { error: output } : { output } } }] }),
  });
  const shellOut = (cmd: string, out: string, code: number) => `Command: ${cmd}\nDirectory: (root)\nOutput: ${out}\nError: (none)\nExit Code: ${code}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 77`;

  it('maps shell commands with exit codes, edits, other tools, tokens, model; error and cancelled calls fail', async () => {
    const records = await importDoc(chat([
      { id: 'm1', timestamp: '2026-06-01T10:00:01.000Z', type: 'user', content: 'Fix the tests' },
      { id: 'm2', timestamp: '2026-06-01T10:00:02.000Z', type: 'gemini', content: 'Running them.', model: 'gemini-2.5-pro', tokens: { input: 1000, output: 50, cached: 400, thoughts: 10, total: 1060 }, thoughts: [{ subject: 'Plan', description: 'run', timestamp: '2026-06-01T10:00:02.000Z' }],
        toolCalls: [
          call('t1', 'run_shell_command', { command: 'npm test', directory: 'web' }, shellOut('npm test', '1 failing', 1)),
          call('t2', 'read_file', { absolute_path: '/w/a.ts' }, 'const a = 1;'),
          call('t3', 'replace', { file_path: '/w/a.ts', old_string: 'a = 1', new_string: 'a = 2' }, 'Successfully modified file: /w/a.ts (1 replacements).'),
          call('t4', 'write_file', { file_path: '/w/b.ts', content: 'x' }, 'Successfully created and wrote to new file: /w/b.ts.'),
          call('t5', 'glob', { pattern: '**/*.ts' }, 'File not found.', 'error'),
        ] },
      { id: 'm3', timestamp: '2026-06-01T10:00:09.000Z', type: 'info', content: 'Request cancelled.' },
      { id: 'm4', timestamp: '2026-06-01T10:00:10.000Z', type: 'gemini', content: [{ text: 'Fixed: ' }, { text: 'a = 2.' }], model: 'gemini-2.5-flash', tokens: { input: 2000, output: 20, cached: 1000, total: 2020 } },
    ]));
    expect(ofType(records, 'session_meta')[0]).toMatchObject({ rolloutId: 'g-1', task: 'Fix the tests', model: 'gemini-2.5-flash', source: 'gemini-cli', ts: '2026-06-01T10:00:00.000Z' });
    expect(ofType(records, 'tool_call').map((c) => [c.name, c.input])).toEqual([
      ['bash', { command: 'npm test', workdir: 'web' }],
      ['read_file', { absolute_path: '/w/a.ts' }],
      ['str_replace_based_edit_tool', { command: 'str_replace', path: '/w/a.ts', old_str: 'a = 1', new_str: 'a = 2' }],
      ['str_replace_based_edit_tool', { command: 'create', path: '/w/b.ts', file_text: 'x' }],
      ['glob', { pattern: '**/*.ts' }],
    ]);
    expect(ofType(records, 'tool_result').map((r) => [r.id, r.isError, r.exitCode])).toEqual([['t1', true, 1], ['t2', false, undefined], ['t3', false, undefined], ['t4', false, undefined], ['t5', true, undefined]]);
    expect(ofType(records, 'message').map((m) => m.text)).toEqual(['Fix the tests', 'Running them.', 'Fixed: \na = 2.']);
    expect(end(records)).toMatchObject({ outcome: 'completed', usage: { inputTokens: 1600, cacheReadTokens: 1400, outputTokens: 80 }, wallMs: 300_000 });
  });

  it('an error message at the end is an error outcome with its text; a cancelled last call is an interruption', async () => {
    const err = await importDoc(chat([
      { id: 'm1', timestamp: '2026-06-01T10:00:01.000Z', type: 'user', content: 'go' },
      { id: 'm2', timestamp: '2026-06-01T10:00:02.000Z', type: 'error', content: '[API Error: quota exceeded]' },
    ]));
    expect(end(err)).toMatchObject({ outcome: 'error', error: '[API Error: quota exceeded]' });
    const cancelled = await importDoc(chat([
      { id: 'm1', timestamp: '2026-06-01T10:00:01.000Z', type: 'user', content: 'go' },
      { id: 'm2', timestamp: '2026-06-01T10:00:02.000Z', type: 'gemini', content: '', toolCalls: [call('t1', 'run_shell_command', { command: 'npm run dev' }, undefined, 'cancelled')] },
    ]));
    expect(end(cancelled)).toMatchObject({ outcome: 'interrupted' });
    expect(ofType(cancelled, 'tool_result')).toMatchObject([{ id: 't1', isError: true, output: '[cancelled]' }]);
  });

  it('folds the JSONL form as Gemini CLI replays it: the last write of a message wins, $rewindTo drops, $set patches', async () => {
    const { format, records } = await importLines([
      { sessionId: 'g-2', projectHash: 'ab12', startTime: '2026-06-01T10:00:00.000Z', lastUpdated: '2026-06-01T10:00:00.000Z', messages: [] },
      { id: 'u1', timestamp: '2026-06-01T10:00:01.000Z', type: 'user', content: 'Build it' },
      { id: 'g1', timestamp: '2026-06-01T10:00:02.000Z', type: 'gemini', content: '', toolCalls: [call('t1', 'run_shell_command', { command: 'make' }, undefined, 'executing')] },
      { id: 'g1', timestamp: '2026-06-01T10:00:02.000Z', type: 'gemini', content: '', toolCalls: [call('t1', 'run_shell_command', { command: 'make' }, shellOut('make', 'ok', 0))] },
      { id: 'u2', timestamp: '2026-06-01T10:00:03.000Z', type: 'user', content: 'no, wait' },
      { $rewindTo: 'u2' },
      { id: 'g2', timestamp: '2026-06-01T10:00:04.000Z', type: 'gemini', content: 'Built.' },
      { $set: { lastUpdated: '2026-06-01T10:00:05.000Z' } },
    ], 'session-x.jsonl');
    expect(format).toBe('gemini-cli');
    expect(ofType(records, 'tool_call')).toHaveLength(1);
    expect(ofType(records, 'tool_result')).toMatchObject([{ id: 't1', exitCode: 0, isError: false }]);
    expect(ofType(records, 'message').map((m) => m.text)).toEqual(['Build it', 'Built.']);
    expect(ofType(records, 'unknown').map((u) => [u.sourceType, (u.raw as { id?: string }).id])).toEqual([['rewound message', 'u2']]);
    expect(end(records)).toMatchObject({ ts: '2026-06-01T10:00:05.000Z', outcome: 'completed' });
  });

  it('the long chat: hundreds of messages, three languages intact, the fail-then-fix found', async () => {
    const records = (await importTranscriptFile(join(ROOT, 'gemini-cli', 'long-run.json'))).records.map((x) => x.record);
    expect(records.length).toBeGreaterThan(600);
    const text = ofType(records, 'message').map((m) => m.text).join('\n');
    for (const s of ['请把 ferrum 项目升级', 'Сначала соберу проект', 'no toques los archivos de migración']) expect(text).toContain(s);
    expect(ofType(records, 'tool_result').filter((t) => t.exitCode === 101 && t.isError)).toHaveLength(1);
  });
});

describe('both formats through learn', () => {
  it.each([['agents-sdk-items', 'long-run.jsonl'], ['gemini-cli', 'long-run.json']])('%s: secrets in tool outputs are redacted in the stored rollout', async (dir, file) => {
    const ws = await tmp();
    const report = await learnPaths([join(ROOT, dir, file)], ws, det);
    const id = report.files[0]!.rollouts[0]!.rolloutId;
    const stored = await readFile(memoryPaths(ws).transcript(id), 'utf8');
    const source = await readFile(join(ROOT, dir, file), 'utf8');
    for (const secret of ['ghp_Zq8vN3kLm5Rt7Wx2Yb4Hc6Jd9Fg1Pa0Se3Ui', 'Qv7#mLp2xZr9', 'sk-proj-4fT9qWm2Xc7Lb1Nz8Kd3Hs6Vy0Rg5Jp']) {
      expect(source).toContain(secret);
      expect(stored).not.toContain(secret);
    }
    expect(stored).toContain('GITHUB_TOKEN=');
    expect(stored).toContain('请把 ferrum');
  });

  it.each([['agents-sdk-items', 'pgledger-items.jsonl'], ['gemini-cli', 'session-2026-06-09T14-00-5c0e9d1a.json'], ['agents-sdk-items', 'long-run.jsonl'], ['gemini-cli', 'long-run.json']])('%s/%s: the fail-then-work pair becomes a lesson', async (dir, file) => {
    const ws = await tmp();
    await learnPaths([join(ROOT, dir, file)], ws, det);
    const memory = await readFile(memoryPaths(ws).memoryMd, 'utf8');
    expect(memory).toMatch(file.startsWith('long') ? /`cargo build` needs `sudo apt-get install -y build-essential` first/ : /`pip install -e \.` needs `sudo apt-get update && sudo apt-get install -y libpq-dev` first/);
  });

  const refused = async (path: string, message: RegExp, hint?: RegExp) => {
    const ws = await tmp();
    await expect(learnPaths([path], ws, det)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(message), ...(hint ? { hint: expect.stringMatching(hint) } : {}) });
    expect(existsSync(memoryPaths(ws).sessionsDir) ? await readdir(memoryPaths(ws).sessionsDir) : []).toEqual([]);
    expect(existsSync(memoryPaths(ws).memoryMd)).toBe(false);
  };

  it('a JSON document cut short is refused saying so, and nothing is written', async () => {
    const d = await tmp();
    for (const src of [join(ROOT, 'gemini-cli', 'session-2026-06-09T14-00-5c0e9d1a.json'), join(ROOT, 'agents-sdk-items', 'pgledger-history.json')]) {
      const p = join(d, `cut-${src.split('/').pop()}`);
      await writeFile(p, (await readFile(src)).subarray(0, 2500));
      await refused(p, /starts like a JSON document but does not parse \(.*\), so it was cut short or damaged/, /copy the file again/);
    }
  });

  it('a document over the cap is refused naming the cap, without being parsed; a Gemini JSONL over it too', async () => {
    const d = await tmp();
    const doc = join(d, 'huge.json');
    await writeFile(doc, '{"sessionId":"g","projectHash":"h","messages":[\n');
    await truncate(doc, MAX_DOCUMENT_BYTES + 1024);
    await refused(doc, new RegExp(`a JSON document of ${MAX_DOCUMENT_BYTES + 1024} bytes, over the ${MAX_DOCUMENT_BYTES}-byte cap`), /split the run/);
    const lines = join(d, 'huge.jsonl');
    await writeFile(lines, '{"sessionId":"g","projectHash":"h","startTime":"2026-06-01T10:00:00Z"}\n{"id":"u1","timestamp":"2026-06-01T10:00:01Z","type":"user","content":"hi"}\n');
    await truncate(lines, MAX_DOCUMENT_BYTES + 1024);
    await refused(lines, /-byte Gemini CLI chat, over the \d+-byte cap/, /Split the session/);
  }, 120_000);

  it('a file that matches only partly is refused with what is wrong in it', async () => {
    const d = await tmp();
    const mixed = join(d, 'mixed.jsonl');
    await writeFile(mixed, [...TRIAL, { event: 'run_finished', at: 3 }].map((l) => JSON.stringify(l)).join('\n') + '\n');
    await refused(mixed, /4 of the first 5 lines are OpenAI Agents SDK run items, but line 5 is not \(keys: event, at\)/);
    const noMessages = join(d, 'session-a.json');
    await writeFile(noMessages, JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: 'x', history: [] }));
    await refused(noMessages, /Gemini CLI chat's sessionId but its "messages" is missing/);
    const badMessages = join(d, 'session-b.json');
    await writeFile(badMessages, JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: 'x', lastUpdated: 'x', messages: [{ role: 'user', parts: [] }, { role: 'model', parts: [] }] }));
    await refused(badMessages, /looks like a Gemini CLI chat \(sessionId "s"\) but 2 of its 2 messages are not message records \(message 1: keys role, parts\)/, /an id, a timestamp, a type/);
  });

  it('invalid UTF-8 is mended and counted, not refused', async () => {
    const d = await tmp();
    const p = join(d, 'bytes.jsonl');
    await writeFile(p, Buffer.concat([Buffer.from(`${JSON.stringify(TRIAL[0])}\n{"type":"function_call_output","call_id":"fc1","output":"bad `), Buffer.from([0xff, 0xfe]), Buffer.from(' bytes"}\n'), Buffer.from(`${JSON.stringify(TRIAL[3])}\n`)]));
    const report = await learnPaths([p], await tmp(), det);
    expect(report.files[0]).toMatchObject({ format: 'agents-sdk-items', status: 'learned', stats: { invalidUtf8: 1 } });
  });
});

describe('mnemara learn --json (the CLI)', () => {
  const files = [
    'agents-sdk-items/pgledger-items.jsonl', 'agents-sdk-items/pgledger-history.json', 'agents-sdk-items/pgledger-items-damaged.jsonl', 'agents-sdk-items/long-run.jsonl', 'agents-sdk-items/failed-run.json',
    'gemini-cli/session-2026-06-09T14-00-5c0e9d1a.json', 'gemini-cli/session-2026-06-10T09-30-6d1fae2b.jsonl', 'gemini-cli/session-damaged.jsonl', 'gemini-cli/long-run.json', 'gemini-cli/failed-run.json',
  ];
  const learn = async (args: string[]) => {
    const home = await tmp();
    const ws = await tmp();
    return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'learn', ...args, '-w', ws, '--deterministic', '--json'], { cwd: REPO, env: { MNEMARA_HOME: home }, reject: false });
  };

  it('exits 0 on each fixture and names its format', async () => {
    // Two at a time: ten CLI processes at once slow the other test files on a shared machine.
    const runs: Awaited<ReturnType<typeof learn>>[] = [];
    for (let i = 0; i < files.length; i += 2) runs.push(...(await Promise.all(files.slice(i, i + 2).map((f) => learn([join(ROOT, f)])))));
    for (const [i, r] of runs.entries()) {
      expect(r.exitCode, `${files[i]}: ${r.stderr}`).toBe(0);
      const report = JSON.parse(r.stdout) as { files: Array<{ format: string; status: string }> };
      expect(report.files).toMatchObject([{ format: files[i]!.split('/')[0], status: 'learned' }]);
    }
  }, 300_000);

  it('exits 2 on a partial match, with the reason', async () => {
    const p = join(await tmp(), 'mixed.jsonl');
    await writeFile(p, [...TRIAL, { event: 'run_finished' }].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await learn([p]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/line 5 is not \(keys: event\)/);
  }, 60_000);
});
