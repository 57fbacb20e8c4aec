import { mkdtemp, rm, writeFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTranscript, readTranscript } from '../../src/transcript/reader.js';
import { MnemaraError } from '../../src/config/errors.js';

const ts = '2026-11-29T17:00:00.000Z';
const meta = { type: 'session_meta', v: 1, ts, rolloutId: 'r1', conversationId: 'c1', task: 'fix it', model: 'm' };
const msg = (text: string, turn = 1) => ({ type: 'message', v: 1, ts, turn, role: 'assistant', text });
const result = (output: string, turn = 1) => ({ type: 'tool_result', v: 1, ts, turn, id: 't1', output, isError: false, exitCode: 0 });
const end = { type: 'session_end', v: 1, ts, outcome: 'completed', turns: 1, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 }, wallMs: 5 };
const jsonl = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mnemara-reader-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string | Buffer): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, content);
  return p;
}

describe('readTranscript', () => {
  it('reads an intact transcript with 1-based line numbers', async () => {
    const p = await file('ok.jsonl', jsonl(meta, msg('hello'), end));
    const { records, skipped } = await loadTranscript(p);
    expect(skipped).toEqual([]);
    expect(records.map((r) => [r.line, r.record.type])).toEqual([[1, 'session_meta'], [2, 'message'], [3, 'session_end']]);
  });

  it('skips a truncated last line and keeps everything before it', async () => {
    const whole = jsonl(meta, msg('a'), msg('b'));
    const p = await file('truncated.jsonl', whole + JSON.stringify(msg('c')).slice(0, 25));
    const { records, skipped } = await loadTranscript(p);
    expect(records).toHaveLength(3);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.line).toBe(4);
    expect(skipped[0]!.reason).toMatch(/^truncated last line/);
  });

  it('skips a corrupt line in the middle and reads on', async () => {
    const p = await file('corrupt.jsonl', jsonl(meta) + '{"type":"message",,,}\n' + jsonl(msg('after'), end));
    const { records, skipped } = await loadTranscript(p);
    expect(records.map((r) => r.line)).toEqual([1, 3, 4]);
    expect(skipped).toEqual([{ line: 2, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it('mends invalid UTF-8 bytes instead of dropping the line', async () => {
    const bad = Buffer.concat([Buffer.from(jsonl(meta)), Buffer.from('{"type":"message","v":1,"ts":"' + ts + '","turn":1,"role":"user","text":"caf'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}\n')]);
    const p = await file('utf8.jsonl', bad);
    const { records, skipped, repaired } = await loadTranscript(p);
    expect(skipped).toEqual([]);
    expect(records).toHaveLength(2);
    const text = (records[1]!.record as { text: string }).text;
    expect(text.startsWith('caf')).toBe(true);
    expect(text).toContain('\uFFFD');
    expect(repaired).toEqual([{ line: 2, reason: expect.stringMatching(/UTF-8/) }]);
  });

  it('replaces lone surrogates (escaped in JSON) with U+FFFD', async () => {
    const line = '{"type":"message","v":1,"ts":"' + ts + '","turn":1,"role":"assistant","text":"a\\ud800b \\udc00 ok \\ud83d\\ude00"}\n';
    const p = await file('surrogate.jsonl', jsonl(meta) + line);
    const { records, repaired } = await loadTranscript(p);
    const text = (records[1]!.record as { text: string }).text;
    expect(text).toBe('a\uFFFDb \uFFFD ok \u{1F600}');
    expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
    expect(repaired).toHaveLength(1);
  });

  it('keeps U+2028 and U+2029 inside strings (raw and escaped) without splitting the line', async () => {
    const raw = JSON.stringify(msg('one\u2028two\u2029three'));
    const escaped = '{"type":"message","v":1,"ts":"' + ts + '","turn":1,"role":"assistant","text":"x\\u2028y"}';
    const p = await file('ls.jsonl', jsonl(meta) + raw + '\n' + escaped + '\n');
    const { records, skipped } = await loadTranscript(p);
    expect(skipped).toEqual([]);
    expect(records.map((r) => r.line)).toEqual([1, 2, 3]);
    expect((records[1]!.record as { text: string }).text).toBe('one\u2028two\u2029three');
    expect((records[2]!.record as { text: string }).text).toBe('x\u2028y');
  });

  it('reports unknown record types and schema failures with their line, and reads on', async () => {
    const p = await file('unknown.jsonl', jsonl(meta, { type: 'compaction', v: 1, ts }, { type: 'message', v: 1, ts, turn: -1, role: 'user', text: 'x' }, [1, 2], msg('fine'), end));
    const { records, skipped } = await loadTranscript(p);
    expect(records.map((r) => r.line)).toEqual([1, 5, 6]);
    expect(skipped.map((s) => s.line)).toEqual([2, 3, 4]);
    expect(skipped[0]!.reason).toMatch(/unknown record type "compaction"/);
    expect(skipped[1]!.reason).toMatch(/invalid message record: turn/);
    expect(skipped[2]!.reason).toBe('not a JSON object');
  });

  it('ignores blank lines, CRLF endings and a BOM', async () => {
    const p = await file('crlf.jsonl', '\uFEFF' + JSON.stringify(meta) + '\r\n\r\n' + JSON.stringify(end) + '\r\n');
    const { records, skipped } = await loadTranscript(p);
    expect(skipped).toEqual([]);
    expect(records.map((r) => [r.line, r.record.type])).toEqual([[1, 'session_meta'], [3, 'session_end']]);
  });

  it('reads a single 50 MB line, and skips a line over the byte cap without holding it', async () => {
    const big = 'x'.repeat(50 * 1024 * 1024);
    const p = await file('big.jsonl', jsonl(meta, result(big), msg('after')));
    const { records, skipped } = await loadTranscript(p);
    expect(skipped).toEqual([]);
    expect((records[1]!.record as { output: string }).output.length).toBe(big.length);

    const capped = await loadTranscript(p, { maxLineBytes: 1024 * 1024 });
    expect(capped.records.map((r) => r.line)).toEqual([1, 3]);
    expect(capped.skipped).toEqual([{ line: 2, reason: expect.stringMatching(/over the 1048576-byte cap/) }]);
  });

  it('streams a 200 MB transcript with bounded memory', async () => {
    const p = join(dir, 'huge.jsonl');
    const fh = await open(p, 'w');
    const line = Buffer.from(JSON.stringify(result('y'.repeat(1024 * 1024 - 200))) + '\n');
    await fh.write(JSON.stringify(meta) + '\n');
    for (let i = 0; i < 200; i += 1) await fh.write(line);
    await fh.close();

    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;
    for await (const r of readTranscript(p)) {
      count += 1;
      if (r.record.type !== 'tool_result') continue;
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    expect(count).toBe(201);
    // 200 MB went through; what stays live is a few lines' worth, not the file.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  it('says what to do when the file is missing', async () => {
    await expect(loadTranscript(join(dir, 'nope.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(loadTranscript(dir)).rejects.toBeInstanceOf(MnemaraError);
  });
});
