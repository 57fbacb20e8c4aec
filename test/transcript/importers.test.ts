import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IMPORTERS,
  importAnthropicMessages,
  importAnthropicMessagesFile,
  importTranscriptFile,
  probeFile,
  splitMemoryBlock,
} from '../../src/transcript/importers/index.js';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { TranscriptRecordSchema, type TranscriptRecord } from '../../src/transcript/schema.js';

const FIXTURES = defaultFixtures();
const fixtureIds = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json') && !f.endsWith('.labels.json'))
  .map((f) => f.slice(0, -'.json'.length));

interface Block {
  type: string;
  [k: string]: unknown;
}
const fixture = (id: string) =>
  JSON.parse(readFileSync(join(FIXTURES, `${id}.json`), 'utf8')) as { system: string; outcome: string; messages: { role: string; content: Block[] }[] };
const ofType = <T extends TranscriptRecord['type']>(records: TranscriptRecord[], type: T) =>
  records.filter((r): r is Extract<TranscriptRecord, { type: T }> => r.type === type);

let dir: string;
let n = 0;
/** Writes Claude Code events as a session file and imports it. */
async function ccRecords(events: unknown[]): Promise<TranscriptRecord[]> {
  const p = join(dir, `cc-${(n += 1)}.jsonl`);
  await writeFile(p, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return (await importTranscriptFile(p)).records.map((r) => r.record);
}
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mnemara-import-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('importAnthropicMessages on the fixtures', () => {
  it.each(fixtureIds)('%s: every record is valid and tool calls/results match the file', async (id) => {
    const json = fixture(id);
    const records = await importAnthropicMessagesFile(join(FIXTURES, `${id}.json`), { startedAt: '2026-01-01T00:00:00.000Z' });
    for (const r of records) expect(TranscriptRecordSchema.safeParse(r).success).toBe(true);
    const blocks = json.messages.flatMap((m) => m.content);
    expect(ofType(records, 'tool_call')).toHaveLength(blocks.filter((b) => b.type === 'tool_use').length);
    expect(ofType(records, 'tool_result')).toHaveLength(blocks.filter((b) => b.type === 'tool_result').length);
    expect(records[0]!.type).toBe('session_meta');
    expect(records.at(-1)!.type).toBe('session_end');
    const bashResults = ofType(records, 'tool_result').filter((r) => r.name === 'bash');
    expect(bashResults.length).toBeGreaterThan(0);
    for (const r of bashResults) {
      expect(r.exitCode).toEqual(expect.any(Number));
      expect(r.output).not.toMatch(/\[exit code: -?\d+\]\s*$/);
      expect(r.isError).toBe(r.exitCode !== 0);
    }
  });

  it('maps the outcome, the task and mid-run user text', () => {
    const records = importAnthropicMessages(fixture('sundial-tz-offset-without-colon'));
    const meta = ofType(records, 'session_meta')[0]!;
    expect(meta.source).toBe('anthropic-messages');
    expect(meta.rolloutId).toBe('sundial-tz-offset-without-colon');
    expect(meta.task).toMatch(/parse_offset/);
    expect(ofType(records, 'session_end')[0]!.outcome).toBe('completed');
    const userTexts = ofType(records, 'message').filter((m) => m.role === 'user');
    expect(userTexts).toHaveLength(3); // the task and two corrections
    expect(userTexts[1]!.text).toMatch(/parametrize/);
    expect(userTexts[1]!.turn).toBeGreaterThan(0);
  });

  it('takes the memory block out of the system prompt', () => {
    const meta = ofType(importAnthropicMessages(fixture('tessellate-ui-2-legend-tooltip')), 'session_meta')[0]!;
    expect(meta.memoryBlock).toMatch(/^## Memory from earlier runs/);
    expect(meta.memoryBlock).toMatch(/npm ci/);
    expect(meta.system).toMatch(/autonomous coding agent/);
    expect(meta.system).not.toMatch(/npm ci|Memory from earlier/);
  });

  it('maps partial and fail, and infers an outcome when none is given', () => {
    const base = { messages: [{ role: 'user', content: 'do it' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'bash', input: { command: 'ls' } }] }] };
    const outcome = (j: object) => ofType(importAnthropicMessages(j), 'session_end')[0]!.outcome;
    // "partial" does not say what ended the run: cut on a tool call is `interrupted` (with why), never assumed a turn limit.
    expect(outcome({ ...base, outcome: 'partial' })).toBe('interrupted');
    expect(ofType(importAnthropicMessages({ ...base, outcome: 'partial' }), 'session_end')[0]!.error).toMatch(/ends on a tool call.*does not say/);
    expect(outcome({ ...base, outcome: 'fail' })).toBe('error');
    expect(outcome(base)).toBe('interrupted');
    expect(outcome({ messages: [...base.messages, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'a\n[exit code: 0]' }] }, { role: 'assistant', content: 'done' }] })).toBe('completed');
  });

  it('accepts the documented outcome values and their usual spellings; refuses another, naming the outcome field (issue 12 item 6)', () => {
    const ended = { messages: [{ role: 'user', content: 'do it' }, { role: 'assistant', content: 'I stopped: the schema needs a decision.' }] };
    const end = (o: string) => ofType(importAnthropicMessages({ ...ended, outcome: o }), 'session_end')[0]!;
    expect(end('failed').outcome).toBe('error');
    expect(end('FAILURE').outcome).toBe('error');
    expect(end('completed').outcome).toBe('completed');
    expect(end('max_turns').outcome).toBe('max_turns');
    // A partial run that ends on the agent's own message was ended by the agent: phase 1 says "stopped on purpose".
    expect(end('partial')).toMatchObject({ outcome: 'error' });
    expect(end('partial').error).toBeUndefined();
    let err: unknown;
    try {
      importAnthropicMessages({ ...ended, outcome: 'kaputt' });
    } catch (e) {
      err = e;
    }
    expect(String(err)).toMatch(/outcome: "kaputt" is not an outcome/);
    expect((err as { hint?: string }).hint).toMatch(/"outcome" to "success", "partial" or "fail".*failed/);
    expect((err as { hint?: string }).hint).not.toMatch(/system/);
  });

  it('gives a hint about the field that is wrong, not a generic one', () => {
    const hint = (j: unknown) => {
      try {
        importAnthropicMessages(j);
      } catch (e) {
        return (e as { hint?: string }).hint ?? '';
      }
      return '';
    };
    expect(hint({ messages: [{ role: 'user', content: 'x' }], system: 42 })).toMatch(/^"system" must be/);
    expect(hint({ messages: [{ role: 'robot', content: 'x' }] })).toMatch(/^"messages" must be/);
    expect(hint({ messages: [{ role: 'user', content: 'x' }], task: 7 })).toMatch(/^"task" must be a string/);
  });

  it('refuses what is not in the Messages form, saying which field is wrong', () => {
    expect(() => importAnthropicMessages({ system: 'x' })).toThrow(/messages/);
    expect(() => importAnthropicMessages({ messages: [{ role: 'robot', content: 'x' }] })).toThrow(/not an Anthropic Messages transcript: messages\.0\.role/);
    expect(() => importAnthropicMessages([])).toThrow(/INVALID|not an Anthropic/);
  });

  it('does not take an unsafe id as the rollout id', () => {
    const meta = ofType(importAnthropicMessages({ id: '../../etc/passwd', messages: [{ role: 'user', content: 'x' }] }), 'session_meta')[0]!;
    expect(meta.rolloutId).toMatch(/^import-\d+$/);
  });

  // Issue 10: the rollout id names `sessions/<id>.jsonl` in every later snapshot and the tree index.
  it('does not take an id that holds a secret as the rollout id (it would name the transcript file)', async () => {
    for (const id of [`ghp_${'Qw3eRt5yUi7oPa9sDf2gHj4kLz6xCv8bNm1q'}`, 'sk_live_51HxKLzdQ2mW8rT4vB7nY3pA', `npm_${'Ab3De5Gh7Jk9Mn2Pq4St6Vw8Yz1Bc3Ef5Hi7'}`]) {
      const meta = ofType(importAnthropicMessages({ id, messages: [{ role: 'user', content: 'x' }] }), 'session_meta')[0]!;
      expect(meta.rolloutId).toMatch(/^import-\d+$/);
      const cc = ofType(await ccRecords([{ type: 'user', sessionId: id, uuid: 'u1', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'Run the tests' } }]), 'session_meta')[0]!;
      expect(cc.rolloutId).not.toContain(id.slice(-12));
      expect(cc.rolloutId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    }
    const plain = ofType(await ccRecords([{ type: 'user', sessionId: 'session-42', uuid: 'u1', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'x' } }]), 'session_meta')[0]!;
    expect(plain.rolloutId).toBe('session-42');
  });
});

describe('splitMemoryBlock', () => {
  it('ends the block at the next heading of the same level', () => {
    const s = splitMemoryBlock('Intro.\n\n## Memory from earlier runs\n- a\n- b\n\n## Rules\nBe nice.');
    expect(s.memoryBlock).toBe('## Memory from earlier runs\n- a\n- b');
    expect(s.system).toBe('Intro.\n\n## Rules\nBe nice.');
  });
  it('recognises a <memory> element and leaves a prompt without one alone', () => {
    expect(splitMemoryBlock('A <memory_summary>x</memory_summary> B').memoryBlock).toBe('<memory_summary>x</memory_summary>');
    expect(splitMemoryBlock('Just instructions.')).toEqual({ system: 'Just instructions.', memoryBlock: undefined });
  });
});

describe('importClaudeCode', () => {
  const events = [
    { type: 'summary', summary: 'x', leafUuid: 'u0' },
    { type: 'user', sessionId: 's1', uuid: 'u1', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'Run the tests' } },
    { type: 'assistant', sessionId: 's1', uuid: 'u2', timestamp: '2026-01-01T00:00:01.000Z', message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'Running.' }] } },
    { type: 'assistant', sessionId: 's1', uuid: 'u3', timestamp: '2026-01-01T00:00:01.500Z', message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } },
    { type: 'user', sessionId: 's1', uuid: 'u4', timestamp: '2026-01-01T00:00:03.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'fail', is_error: true }] } },
    { type: 'user', sessionId: 's1', uuid: 'u5', isMeta: true, message: { role: 'user', content: 'caveat' } },
    { type: 'assistant', sessionId: 's1', uuid: 'u6', timestamp: '2026-01-01T00:00:04.000Z', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'It fails.' }] } },
  ];

  it('joins split assistant messages into one turn and keeps calls, results and the outcome', async () => {
    const records = await ccRecords(events);
    for (const r of records) expect(TranscriptRecordSchema.safeParse(r).success).toBe(true);
    const meta = ofType(records, 'session_meta')[0]!;
    expect(meta).toMatchObject({ rolloutId: 's1', task: 'Run the tests', model: 'claude-x', source: 'claude-code' });
    expect(ofType(records, 'tool_call')).toMatchObject([{ name: 'bash', turn: 1, input: { command: 'npm test' } }]);
    expect(ofType(records, 'tool_result')).toMatchObject([{ name: 'bash', isError: true, output: 'fail' }]);
    expect(ofType(records, 'message').map((m) => m.text)).toEqual(['Run the tests', 'Running.', 'It fails.']);
    expect(ofType(records, 'session_end')[0]).toMatchObject({ outcome: 'completed', turns: 2, wallMs: 4000 });
  });

  it('is picked by importTranscriptFile, and damaged lines are reported', async () => {
    const p = join(dir, 'cc.jsonl');
    await writeFile(p, events.map((e) => JSON.stringify(e)).join('\n') + '\n{"type":"assis');
    const imported = await importTranscriptFile(p);
    expect(imported.format).toBe('claude-code');
    expect(imported.skipped).toEqual([]);
    expect(imported.records.map((r) => r.record).filter((r) => r.type === 'damaged')).toMatchObject([{ sourceLine: 8, bytes: 14, reason: expect.stringContaining('cut last line'), fragment: '{"type":"assis' }]);
    expect(imported.records.map((r) => r.line)).toEqual(imported.records.map((_, i) => i + 1));
  });
});

describe('Claude Code tools', () => {
  it('map onto bash and the text editor, with exit codes, so phase 1 reads them like our own', async () => {
    const ev = (type: string, content: unknown[], id?: string) => ({ type, sessionId: 's', uuid: String(Math.random()), message: { ...(id ? { id } : {}), role: type, content } });
    const records = await ccRecords(
      [
        ev('user', [{ type: 'text', text: 'fix it' }]),
        ev('assistant', [{ type: 'tool_use', id: 'a', name: 'Edit', input: { file_path: '/repo/src/x.ts', old_string: 'a', new_string: 'b' } }], 'm1'),
        ev('user', [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }]),
        ev('assistant', [{ type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'npm test', description: 'run tests' } }], 'm2'),
        ev('user', [{ type: 'tool_result', tool_use_id: 'b', content: 'FAIL x\nExit code 1', is_error: true }]),
        ev('assistant', [{ type: 'tool_use', id: 'c', name: 'Grep', input: { pattern: 'x' } }], 'm3'),
      ],
    );
    expect(ofType(records, 'tool_call').map((c) => [c.name, c.input])).toEqual([
      ['str_replace_based_edit_tool', { command: 'str_replace', path: '/repo/src/x.ts', old_str: 'a', new_str: 'b' }],
      ['bash', { command: 'npm test' }],
      ['Grep', { pattern: 'x' }],
    ]);
    expect(ofType(records, 'tool_result').map((r) => r.exitCode)).toEqual([undefined, 1]);
  });
});

describe('importTranscriptFile', () => {
  it('sniffs the Anthropic Messages form and mnemara JSONL', async () => {
    const a = await importTranscriptFile(join(FIXTURES, 'pebble-docs-typo-receive.json'));
    expect(a.format).toBe('anthropic-messages');
    const p = join(dir, 'own.jsonl');
    await writeFile(p, a.records.map((r) => JSON.stringify(r.record)).join('\n') + '\n');
    const own = await importTranscriptFile(p);
    expect(own.format).toBe('mnemara');
    expect(own.records).toEqual(a.records);
  });

  it('refuses a file in no known format', async () => {
    const p = join(dir, 'text.txt');
    await writeFile(p, 'hello\n');
    await expect(importTranscriptFile(p)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(importTranscriptFile(join(dir, 'missing'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a directory, whatever its name, with an error that says so', async () => {
    for (const name of ['sessions', 'run.json', 'run.jsonl']) {
      const p = join(dir, 'dirs', name);
      await mkdir(p, { recursive: true });
      await expect(importTranscriptFile(p), name).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('is a directory') });
    }
  });
});

describe('stable re-imports', () => {
  it('importing the same file twice gives the same records (times from the file, not the clock)', async () => {
    const p = join(FIXTURES, 'sundial-tz-offset-without-colon.json');
    const a = await importTranscriptFile(p);
    await new Promise((r) => setTimeout(r, 5));
    const b = await importTranscriptFile(p);
    expect(JSON.stringify(b.records)).toBe(JSON.stringify(a.records));
  });
});

describe('detection: every importer fixture is detected as exactly its own format', () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'importers');
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  /** The importer key a fixture must get: its format's directory, except the files no format reads. */
  const expected = (rel: string): string | undefined => {
    if (/\.labels\.json$|^make-fixtures\.ts$|^README\.md$/.test(rel)) return 'skip';
    if (/memories\/MEMORY\.md$/.test(rel)) return 'agents-sdk-memory';
    if (/memories\/|\.meta\.json$|\/logs\.json$/.test(rel)) return undefined;
    return rel.split('/')[0];
  };
  const files = walk(root).map((p) => ({ p, rel: relative(root, p) })).filter(({ rel }) => expected(rel) !== 'skip');
  const messages = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.endsWith('.labels.json')).slice(0, 5).map((f) => ({ p: join(FIXTURES, f), rel: `transcripts/${f}` }));

  it('covers every format, the two new ones included', () => {
    const keys = new Set(files.map(({ rel }) => expected(rel)));
    for (const k of IMPORTERS.map((i) => i.key).filter((k) => !['mnemara', 'anthropic-messages'].includes(k))) expect(keys, k).toContain(k);
  });

  it.each([...files, ...messages].map((f) => [f.rel, f] as const))('%s', async (rel, { p }) => {
    const probe = { ...(await probeFile(p, statSync(p).size)), path: p };
    const matched = IMPORTERS.filter(({ importer }) => importer.detect(probe)).map(({ key }) => key);
    const want = rel.startsWith('transcripts/') ? 'anthropic-messages' : expected(rel);
    expect(matched).toEqual(want ? [want] : []);
  });

  it('a mnemara transcript is mnemara only, and other shapes near the new formats are neither of them', async () => {
    const own = join(dir, 'own-detect.jsonl');
    const a = await importTranscriptFile(join(root, 'gemini-cli', 'session-2026-06-09T14-00-5c0e9d1a.json'));
    await writeFile(own, a.records.map((r) => JSON.stringify(r.record)).join('\n') + '\n');
    const cases: Array<[string, string, string[]]> = [
      ['own.jsonl', readFileSync(own, 'utf8'), ['mnemara']],
      // Chat Completions JSONL: plain role messages only, no mark of the Agents SDK.
      ['chat.jsonl', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }].map((l) => JSON.stringify(l)).join('\n'), []],
      // An Anthropic message list as a bare array: text/tool_use blocks are not Responses API parts.
      ['anthropic.json', JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'bash', input: {} }] }]), []],
      // Gemini CLI's logs.json and a checkpoint: not chats.
      ['logs.json', JSON.stringify([{ sessionId: 's', messageId: 0, type: 'user', message: 'hi', timestamp: '2026-01-01T00:00:00Z' }]), []],
      ['checkpoint.json', JSON.stringify({ history: [{ role: 'user', parts: [{ text: 'hi' }] }] }), []],
    ];
    for (const [name, text, want] of cases) {
      const p = join(dir, `detect-${name}`);
      await writeFile(p, text);
      const probe = { ...(await probeFile(p, statSync(p).size)), path: p };
      expect(IMPORTERS.filter(({ importer }) => importer.detect(probe)).map(({ key }) => key), name).toEqual(want);
    }
  });
});
