/**
 * Trial 21 F10 (low): `mnemara recover` with a key set but no reachable endpoint left every rollout pending with
 * "Connection error." alone. It now names the endpoint and the way out (the deterministic extractor); a refusal
 * by the endpoint (a bad request, a key it rejects) is no such case.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { unreachableModelHint } from '../../src/cli/commands/recover.js';
import { loadConfig } from '../../src/config/load.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';
import { deadPid } from '../support/dead-pid.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('recover, when the memory model could not be reached', () => {
  const { config } = loadConfig({ env: {} });
  it('names the endpoint and the deterministic extractor', () => {
    const [hint] = unreachableModelHint([{ pendingErrors: { a: 'Connection error.', b: 'request timed out' } }, { pendingErrors: { c: 'Connection error.' } }], config);
    expect(hint).toMatch(/3 extraction\(s\) could not reach the memory model at \S+/);
    expect(hint).toContain('--set memory.extractor=deterministic');
    expect(hint).toContain('nothing is lost');
  });
  it('says nothing for refusals or when nothing failed', () => {
    expect(unreachableModelHint([{ pendingErrors: { a: '400 invalid_request_error: prompt is too long' } }, {}], config)).toEqual([]);
  });
});

describe('recover --json, when the memory model could not be reached', () => {
  // The hint was printed for people only: a script reading --json saw "Connection error." and no way out.
  it('carries the hint in its document', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const ws = tempDir();
    writeFileSync(join(ws, 'main.py'), 'print("hello")\n');
    const start = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace' });
    await store.advanceHead('app', null, start.id);
    const id = '20261201T100000000Z-bbbbbbbbbb';
    const ts = '2026-12-01T10:00:00Z';
    mkdirSync(join(home, 'transcripts'), { recursive: true });
    const events = [
      { type: 'session_meta', v: 1, ts, rolloutId: id, conversationId: id, task: 'fix the greeting', model: 'm' },
      { type: 'message', v: 1, ts, turn: 0, role: 'user', text: 'fix the greeting' },
      { type: 'tool_call', v: 1, ts, turn: 1, id: 't1', name: 'bash', input: { command: 'python3 main.py' } },
      { type: 'tool_result', v: 1, ts, turn: 1, id: 't1', output: 'hello\n', isError: false, exitCode: 0 },
      { type: 'message', v: 1, ts, turn: 2, role: 'assistant', text: 'It prints hello; run it with `python3 main.py`.' },
    ];
    writeFileSync(join(home, 'transcripts', `${id}.jsonl`), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    writeFileSync(join(home, 'transcripts', `${id}.session.json`), JSON.stringify({ rolloutId: id, lineage: 'app', pid: await deadPid(), host: hostname(), startedAt: ts, endedAt: ts }));
    const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'recover', '--json', '--set', 'memory.extractor=model'], {
      env: { MNEMARA_HOME: home, ANTHROPIC_API_KEY: 'sk-test-unused', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', PATH: process.env.PATH ?? '' },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const doc = JSON.parse(r.stdout) as { results: { pending: string[] }[]; hints: string[] };
    expect(doc.results[0]!.pending).toEqual([id]);
    expect(doc.hints).toHaveLength(1);
    expect(doc.hints[0]).toMatch(/^1 extraction\(s\) could not reach the memory model at http:\/\/127\.0\.0\.1:9/);
    expect(doc.hints[0]).toContain('--set memory.extractor=deterministic');
  }, 180_000);
});
