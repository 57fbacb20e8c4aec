import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import { DockerSandbox } from '../../src/sandbox/index.js';
import { createModelClient, createToolbox, runAgent } from '../../src/agent/index.js';
import { TranscriptRecordSchema, type TranscriptRecord } from '../../src/transcript/schema.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn } from '../support/messages-server.js';

// One real, hardened container for the whole file (the sandbox image from `npm run setup`).
let sandbox: DockerSandbox;
let hostDir: string;

const CALC = 'def add(a, b):\n    return a - b\n';
const TEST = [
  'import unittest',
  'from calc import add',
  '',
  'class AddTest(unittest.TestCase):',
  '    def test_add(self):',
  '        self.assertEqual(add(2, 3), 5)',
  '',
].join('\n');

beforeAll(async () => {
  sandbox = await DockerSandbox.create({ sessionId: 'agent-docker-test' });
  hostDir = await mkdtemp(join(tmpdir(), 'mnemara-agent-docker-'));
  await sandbox.writeFile('/workspace/calc.py', CALC);
  await sandbox.writeFile('/workspace/test_calc.py', TEST);
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  await rm(hostDir, { recursive: true, force: true });
});

describe('a scripted run in a real Docker sandbox', () => {
  it('lists files, runs the failing test, fixes it with str_replace, reruns it, and the transcript shows exactly that', async () => {
    const seen: string[] = [];
    const server = await startMessagesServer([
      turn(text('Let me look at the project.'), toolUse('bash', { command: 'ls' })),
      // `-B`: the fix keeps calc.py's size, and an edit in the same second as the first run would otherwise be
      // hidden by the stale __pycache__ (Python checks size + whole-second mtime): the test failed 2 runs in 5.
      (req) => {
        seen.push(lastToolResults(req)[0]!.text);
        return turn(toolUse('bash', { command: 'python3 -B -m unittest -q test_calc' }));
      },
      (req) => {
        seen.push(lastToolResults(req)[0]!.text);
        return turn(
          text('add subtracts; fixing.'),
          toolUse('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/calc.py', old_str: 'return a - b', new_str: 'return a + b' }),
        );
      },
      (req) => {
        seen.push(lastToolResults(req)[0]!.text);
        return turn(toolUse('bash', { command: 'python3 -B -m unittest -q test_calc' }));
      },
      (req) => {
        seen.push(lastToolResults(req)[0]!.text);
        return turn(text('Fixed: add() used subtraction; the test passes now.'));
      },
    ]);
    try {
      const transcriptPath = join(hostDir, 'scenario.jsonl');
      const result = await runAgent({
        sandbox,
        client: createModelClient({ baseURL: server.url, env: {} }),
        instructions: 'Fix the failing test.',
        task: 'The test in test_calc.py fails. Make it pass.',
        maxTurns: 10,
        maxTokens: 1_000_000,
        liveUpdate: true,
        memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' },
        transcriptPath,
      });
      expect(result).toMatchObject({ outcome: 'completed', turns: 5 });

      // What the model was shown at each step.
      expect(seen[0]).toMatch(/calc\.py\ntest_calc\.py/);
      expect(seen[1]).toMatch(/FAILED \(failures=1\)/);
      expect(seen[1]).toContain('[exit code: 1]');
      expect(seen[2]).toContain('has been edited');
      expect(seen[3]).toMatch(/OK/);
      expect(seen[3]).toContain('[exit code: 0]');

      // The workspace.
      expect((await sandbox.readFile('/workspace/calc.py')).toString()).toBe('def add(a, b):\n    return a + b\n');

      // The transcript, line by line valid, showing exactly the four tool calls and their outcomes.
      const host = await readFile(transcriptPath, 'utf8');
      const records: TranscriptRecord[] = host.trimEnd().split('\n').map((l) => TranscriptRecordSchema.parse(JSON.parse(l)));
      const calls = records.filter((r) => r.type === 'tool_call');
      expect(calls.map((c) => c.type === 'tool_call' && [c.name, (c.input as { command: string }).command])).toEqual([
        ['bash', 'ls'],
        ['bash', 'python3 -B -m unittest -q test_calc'],
        ['str_replace_based_edit_tool', 'str_replace'],
        ['bash', 'python3 -B -m unittest -q test_calc'],
      ]);
      const results = records.filter((r) => r.type === 'tool_result');
      expect(results.map((r) => r.type === 'tool_result' && [r.exitCode ?? null, r.isError])).toEqual([
        [0, false],
        [1, false],
        [null, false],
        [0, false],
      ]);
      for (const r of results) expect(r.type === 'tool_result' && r.durationMs).toBeGreaterThan(0);
      expect(records[0]).toMatchObject({ type: 'session_meta', rolloutId: result.rolloutId, versions: { sandbox: 'docker' } });
      expect(records.at(-1)).toMatchObject({ type: 'session_end', outcome: 'completed', turns: 5 });
      // The memory tool was offered (live update on).
      expect(server.messageRequests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(['bash', 'str_replace_based_edit_tool', 'memory']);

      // Placed into the workspace, identical to the host copy.
      expect(result.workspaceTranscriptPath).toBe(`/workspace/sessions/${result.rolloutId}.jsonl`);
      expect((await sandbox.readFile(result.workspaceTranscriptPath!)).toString()).toBe(host);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('confines the memory tool to /workspace/memories inside the container (symlinks, traversal, encoding)', async () => {
    const box = createToolbox({ sandbox, liveUpdate: true, memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' } });
    const memory = box.tools.find((t) => (t as { name: string }).name === 'memory') as BetaRunnableTool;
    const call = async (input: unknown): Promise<{ ok: boolean; text: string }> => {
      try {
        return { ok: true, text: String(await memory.run(memory.parse(input), { toolUse: { id: `t${Math.random()}`, name: 'memory', input, type: 'tool_use' }, toolUseBlock: undefined as never })) };
      } catch (e) {
        return { ok: false, text: (e as Error).message };
      }
    };
    expect(await call({ command: 'create', path: '/memories/lessons.md', file_text: '- run tests with python3 -m unittest\n' })).toMatchObject({ ok: true });
    const ls = await sandbox.exec('stat -c "%U %a" memories/lessons.md && ln -s /etc memories/etc && ln -s /workspace memories/ws');
    expect(ls.stdout.trim()).toBe('agent 644');
    for (const input of [
      { command: 'view', path: '/memories/etc/passwd' },
      { command: 'create', path: '/memories/ws/calc.py', file_text: 'pwned' },
      { command: 'view', path: '/memories/../calc.py' },
      { command: 'view', path: '/memories/..%2fcalc.py' },
      { command: 'str_replace', path: '/memories/ws/calc.py', old_str: 'a + b', new_str: 'a * b' },
    ]) {
      const r = await call(input);
      expect(r.ok, JSON.stringify(input)).toBe(false);
      expect(r.text).not.toContain('root:x:0');
    }
    expect((await sandbox.readFile('/workspace/calc.py')).toString()).toContain('return a + b');
    expect((await call({ command: 'view', path: '/memories/lessons.md' })).text).toContain('1\t- run tests with python3 -m unittest');
  }, 60_000);

  // Last in the file: it removes the shared container. (A container that only stopped, as after the agent's
  // `kill -9 -1`, is started again once and the command retried: test/session/kill-all.test.ts.)
  it('ends the run as error (SANDBOX_LOST) when the container is gone, keeping the transcript on the host', async () => {
    const server = await startMessagesServer([
      turn(toolUse('bash', { command: 'true' })),
      () => {
        execFileSync('docker', ['rm', '-f', sandbox.id], { stdio: 'ignore' });
        return turn(toolUse('bash', { command: 'echo after-death' }));
      },
      turn(text('never asked')),
    ]);
    try {
      const transcriptPath = join(hostDir, 'lost.jsonl');
      const result = await runAgent({
        sandbox,
        client: createModelClient({ baseURL: server.url, env: {} }),
        instructions: 'x',
        task: 'x',
        maxTurns: 10,
        maxTokens: 1_000_000,
        liveUpdate: false,
        memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' },
        transcriptPath,
      });
      expect(result).toMatchObject({ outcome: 'error', turns: 2, error: { code: 'SANDBOX_LOST' } });
      expect(result.workspaceTranscriptPath).toBeUndefined();
      expect(server.messageRequests).toHaveLength(2);
      const records = (await readFile(transcriptPath, 'utf8')).trimEnd().split('\n').map((l) => TranscriptRecordSchema.parse(JSON.parse(l)));
      expect(records.at(-1)).toMatchObject({ type: 'session_end', outcome: 'error' });
      expect(records.filter((r) => r.type === 'tool_result').map((r) => r.type === 'tool_result' && r.isError)).toEqual([false, true]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
