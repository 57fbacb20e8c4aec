/**
 * Agent run overhead per tool call (issue 4). In one real Docker sandbox:
 * - baseline: a bare `sandbox.exec('true')` round trip;
 * - in the loop: the exec round trip of a scripted `bash true` tool call inside `runAgent` (the tool's own
 *   timing: path/cwd wrapper, exec, formatting), and the whole turn (scripted model call over HTTP+SSE,
 *   tool call, transcript lines fsynced);
 * - an editor `str_replace` call (three sandbox round trips);
 * - the transcript append (zod validation + write + fsync) per record, against a bare append without fsync.
 * Prints medians and ratios. `npm run bench agent`, or `npx tsx bench/agent.bench.ts [--quick]`.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DockerSandbox } from '../src/sandbox/index.js';
import { createModelClient, createToolbox, runAgent, TranscriptWriter, type AgentEvent } from '../src/agent/index.js';
import { startMessagesServer, toolUse, turn, text } from '../test/support/messages-server.js';
import { median } from './support/stats.js';

const fmt = (ms: number): string => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;

export default async function agentBench(opts: { quick: boolean }): Promise<void> {
  const n = opts.quick ? 10 : 40;
  const hostDir = await mkdtemp(join(tmpdir(), 'mnemara-agent-bench-'));
  const sandbox = await DockerSandbox.create({ sessionId: 'agent-bench' });
  try {
    // Warm-up, then the baseline.
    for (let i = 0; i < 3; i++) await sandbox.exec('true');
    const bare: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await sandbox.exec('true');
      bare.push(performance.now() - t);
    }

    // n turns of `bash true`, then end_turn.
    let calls = 0;
    const server = await startMessagesServer((_req) => (calls++ < n ? turn(toolUse('bash', { command: 'true' })) : turn(text('done'))));
    const toolMs: number[] = [];
    const turnMs: number[] = [];
    let turnStart = 0;
    const onEvent = (e: AgentEvent): void => {
      if (e.type === 'model_call_started') {
        if (turnStart) turnMs.push(performance.now() - turnStart);
        turnStart = performance.now();
      }
      if (e.type === 'tool_call_ended') toolMs.push(e.ms);
    };
    try {
      const result = await runAgent({
        sandbox,
        client: createModelClient({ baseURL: server.url, env: {} }),
        instructions: 'bench',
        task: 'bench',
        maxTurns: n + 5,
        maxTokens: 100_000_000,
        liveUpdate: false,
        memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' },
        transcriptPath: join(hostDir, 'bench.jsonl'),
        onEvent,
      });
      if (result.outcome !== 'completed') throw new Error(`bench run ended ${result.outcome}: ${result.error?.message}`);
    } finally {
      await server.close();
    }

    // Editor str_replace round trips (resolve, read, atomic write) on a small file, alternating two edits.
    const box = createToolbox({ sandbox, liveUpdate: false, memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' } });
    const editor = box.tools[1]!;
    await sandbox.writeFile('/workspace/edit.txt', 'alpha\nbeta\ngamma\n');
    const editMs: number[] = [];
    for (let i = 0; i < n; i++) {
      const [from, to] = i % 2 === 0 ? ['beta', 'BETA'] : ['BETA', 'beta'];
      const input = { command: 'str_replace', path: '/workspace/edit.txt', old_str: from, new_str: to };
      const t = performance.now();
      await editor.run(input, { toolUse: { id: `e${i}`, name: 'str_replace_based_edit_tool', input, type: 'tool_use' }, toolUseBlock: undefined as never });
      editMs.push(performance.now() - t);
    }

    // Transcript appends: the writer (validate + write + fsync) vs a bare append.
    const writer = await TranscriptWriter.open(join(hostDir, 'append.jsonl'));
    const record = { type: 'tool_result' as const, turn: 1, id: 'toolu_x', output: 'x'.repeat(2000), isError: false, exitCode: 0, durationMs: 5 };
    const appendMs: number[] = [];
    for (let i = 0; i < n * 5; i++) {
      const t = performance.now();
      await writer.append(record);
      appendMs.push(performance.now() - t);
    }
    await writer.close();
    const fh = await open(join(hostDir, 'bare.jsonl'), 'a');
    const bareAppend: number[] = [];
    const line = `${JSON.stringify(record)}\n`;
    for (let i = 0; i < n * 5; i++) {
      const t = performance.now();
      await fh.write(line);
      bareAppend.push(performance.now() - t);
    }
    await fh.close();

    const base = median(bare);
    const rows: Array<[string, number, string]> = [
      ['bare sandbox.exec("true") round trip (baseline)', base, '1.00×'],
      ['bash "true" tool call inside runAgent (exec round trip)', median(toolMs), `${(median(toolMs) / base).toFixed(2)}×`],
      ['whole turn: scripted model call + tool + transcript', median(turnMs), `${(median(turnMs) / base).toFixed(2)}×`],
      ['editor str_replace (resolve + read + atomic write)', median(editMs), `${(median(editMs) / base).toFixed(2)}×`],
      ['transcript append, bare write (baseline)', median(bareAppend), '1.00×'],
      ['transcript append: redact + zod + write + fsync', median(appendMs), `${(median(appendMs) / median(bareAppend)).toFixed(1)}×`],
    ];
    console.log(`\nagent: per-tool-call overhead, Docker sandbox, n=${n} (medians)`);
    console.log(`${'measure'.padEnd(58)} ${'median'.padStart(10)}  ratio`);
    for (const [name, ms, ratio] of rows) console.log(`${name.padEnd(58)} ${fmt(ms).padStart(10)}  ${ratio}`);
    console.log(`in-loop overhead over a bare exec: ${fmt(median(toolMs) - base)} per tool call`);
  } finally {
    await sandbox.close();
    await rm(hostDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  agentBench({ quick: process.argv.includes('--quick') }).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
