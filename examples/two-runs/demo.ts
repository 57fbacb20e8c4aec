/**
 * `npm run demo`: two sessions on one lineage. Run 1 fixes a bug in a small Python library whose tests only run
 * through `scripts/check.sh`; its transcript becomes lessons in memories/MEMORY.md. Run 2, a related task, starts
 * from the lineage head and so with that memory in its prompt. Prints what carried over, and the turns, tokens
 * and time of both runs.
 *
 * With ANTHROPIC_API_KEY set, Claude runs the agent (and the model path writes the memory). Without it, a
 * scripted model (test/support/messages-server.ts, reacting to the real tool results) runs the agent and the
 * deterministic pipeline writes the memory (`--offline` forces this mode). Docker, snapshots and the pipeline are
 * real either way.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTranscript } from '../../src/transcript/reader.js';
import { loadConfig } from '../../src/config/load.js';
import { runSession, type SessionEvent, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, type MessagesServer } from '../../test/support/messages-server.js';
import { ADD_DAYS, FIX_BUG, policy, type ScriptedTask } from './scripted-model.js';

const here = dirname(fileURLToPath(import.meta.url));
// `npm run demo -- --offline` uses the scripted model even when a key is set.
const live = Boolean(process.env.ANTHROPIC_API_KEY) && !process.argv.includes('--offline');
// `--verbose` prints every step and tool call as it happens; by default one line a run (the first screen matters).
const verbose = process.argv.includes('--verbose');
const say = (line = ''): void => void process.stdout.write(`${line}\n`);

say(
  live
    ? 'mnemara two-run demo: the agent is Claude (ANTHROPIC_API_KEY is set); the memory pipeline uses the model.'
    : 'mnemara two-run demo: OFFLINE, with a SCRIPTED model (not Claude) playing the agent against the real tool results, and the deterministic memory pipeline. Set ANTHROPIC_API_KEY to use Claude.',
);

const home = process.env.MNEMARA_HOME ?? mkdtempSync(join(tmpdir(), 'mnemara-demo-'));
// With MNEMARA_HOME set, everything the demo writes goes under it (a user who points it at a larger disk or a
// scratch folder expects nothing in /tmp).
const scratch = process.env.MNEMARA_HOME ? join(home, 'demo') : tmpdir();
mkdirSync(scratch, { recursive: true });
const workspace = join(mkdtempSync(join(scratch, 'mnemara-demo-ws-')), 'durations');
mkdirSync(workspace);
cpSync(join(here, 'repo'), workspace, { recursive: true });
const lineage = `demo/durations-${Date.now().toString(36)}`;
say(`home ${home}   workspace ${workspace}   lineage ${lineage}`);
say();

/** One compact live line per step end and per tool call. */
function printer(label: string): (e: SessionEvent) => void {
  return (e) => {
    if (!verbose) return;
    if (e.type === 'tool' && e.tool.phase === 'end') {
      const status = e.tool.exitCode !== undefined && e.tool.exitCode !== null ? `exit ${e.tool.exitCode}` : e.tool.isError ? 'error' : 'ok';
      say(`  ${label} turn ${e.tool.turn}  ${e.tool.name === 'bash' ? '$ ' : ''}${e.tool.summary.replace(/\s+/g, ' ').slice(0, 90)}  → ${status}`);
    } else if (e.type === 'progress' && e.progress.phase === 'end' && !['sandbox-start', 'snapshot', 'merge'].includes(e.progress.step)) {
      say(`  ${label} ✓ ${e.progress.step}${e.progress.message ? `: ${e.progress.message}` : ''} (${e.progress.elapsedMs ?? 0} ms)`);
    }
  };
}

async function session(label: string, job: ScriptedTask): Promise<{ result: SessionResult; server?: MessagesServer }> {
  const server = live ? undefined : await startMessagesServer(policy(job));
  const env: NodeJS.ProcessEnv = { ...process.env, MNEMARA_HOME: home };
  if (server) {
    // Offline: the scripted server is the model; no key of the user's goes anywhere.
    Object.assign(env, { ANTHROPIC_BASE_URL: server.url, MNEMARA_MEMORY_EXTRACTOR: 'deterministic' });
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_AUTH_TOKEN;
    delete env.MNEMARA_ANTHROPIC_API_KEY;
  }
  const { config } = loadConfig({ env, workspace });
  say(`${label}: ${job.task}`);
  try {
    const result = await runSession({ workspace, task: job.task, config, lineage }, { onEvent: printer(label) });
    const lessons = result.lessons ? `+${result.lessons.added.length} ~${result.lessons.changed.length} lesson(s)` : 'no lessons';
    const mnemaraMs = result.timings.totalMs - (result.timings.agent ?? 0);
    say(`  ${result.outcome === 'completed' ? '✓' : '✗'} ${result.outcome} after ${result.turns} turns (agent ${((result.timings.agent ?? 0) / 1000).toFixed(1)} s, mnemara ${(mnemaraMs / 1000).toFixed(1)} s), ${lessons} → head ${result.head}`);
    return { result, ...(server ? { server } : {}) };
  } finally {
    await server?.close();
  }
}

async function toolCalls(transcript: string): Promise<{ calls: string[]; memoryBlock: string | undefined }> {
  const { records } = await loadTranscript(transcript);
  const calls: string[] = [];
  let memoryBlock: string | undefined;
  for (const { record } of records) {
    if (record.type === 'session_meta') memoryBlock = record.memoryBlock;
    if (record.type === 'tool_call') {
      const input = record.input as { command?: string; path?: string };
      calls.push(record.name === 'bash' ? String(input.command) : `${record.name} ${input.command ?? ''} ${input.path ?? ''}`);
    }
  }
  return { calls, memoryBlock };
}

const one = await session('run 1', FIX_BUG);
const two = await session('run 2', ADD_DAYS);
say();

const store = await openStore(join(home, 'store'));
const memDir = mkdtempSync(join(scratch, 'mnemara-demo-memory-'));
const head = await store.getHead(lineage);
if (head) await store.restoreToDirectory(head, join(memDir, 'head'), { paths: ['memories'] });
const t1 = await toolCalls(one.result.transcriptPath!);
const t2 = await toolCalls(two.result.transcriptPath!);

// The summary part of the block (the instructions around it are the same every run; --verbose shows them).
const summary = t2.memoryBlock && !verbose ? /<memory_summary>\n?([\s\S]*?)\n?<\/memory_summary>/.exec(t2.memoryBlock)?.[1] : t2.memoryBlock;
say(`What carried over: the memory ${verbose ? 'block' : 'summary'} run 2 started with in its prompt (from its transcript):`);
say(summary ? summary.replace(/^/gm, '  │ ') : '  (none: run 1 left no memory)');
say();
/** Tool calls spent finding out how to run the tests: those before the first real test run, memory lookups aside. */
const discovery = (calls: string[]): string => {
  const i = calls.findIndex((c) => c.includes('scripts/check.sh') && !c.startsWith('ls') && !c.startsWith('grep'));
  if (i < 0) return 'never ran';
  const lookups = calls.slice(0, i).filter((c) => c.includes('memories/')).length;
  return `${i - lookups}${lookups ? ` (+${lookups} memory)` : ''}`;
};
const row = (name: string, r: SessionResult, calls: string[]): string =>
  [
    name.padEnd(6),
    r.outcome.padEnd(10),
    String(r.turns).padStart(5),
    String(calls.length).padStart(6),
    discovery(calls).padStart(20),
    `${r.usage.inputTokens}/${r.usage.outputTokens}`.padStart(13),
    ((r.timings.agent ?? 0) / 1000).toFixed(1).padStart(7),
    ((r.timings.totalMs - (r.timings.agent ?? 0)) / 1000).toFixed(1).padStart(9),
    r.pending ? 'pending (not extracted)' : r.lessons ? `+${r.lessons.added.length} ~${r.lessons.changed.length} (${r.lessons.total})` : '-',
  ].join('  ');
say('run     outcome     turns   tools  calls to find tests  tokens in/out  agent s  mnemara s  lessons (+added ~changed, total)');
say(row('run 1', one.result, t1.calls));
say(row('run 2', two.result, t2.calls));
for (const [name, r] of [['run 1', one.result], ['run 2', two.result]] as const) {
  if (r.agentError) say(`${name}: the agent failed: ${r.agentError}`);
  if (r.pipelineError) say(`${name}: the memory pipeline failed (the rollout stays pending): ${r.pipelineError}`);
}
if (verbose) {
  say();
  say(`run 1 tool calls: ${t1.calls.join(' | ')}`);
  say(`run 2 tool calls: ${t2.calls.join(' | ')}`);
  say();
  say(`MEMORY.md at the head of ${lineage} (${head}):`);
  try {
    say(readFileSync(join(memDir, 'head', 'memories', 'MEMORY.md'), 'utf8').replace(/^/gm, '  │ '));
  } catch {
    say('  (no MEMORY.md)');
  }
}
rmSync(memDir, { recursive: true, force: true });
say();
say(`Look around (export MNEMARA_HOME=${home}; the host copy ${workspace} is unchanged):`);
say(`  mnemara memory show --lineage ${lineage}      mnemara snapshot list --lineage ${lineage}`);
say(`  mnemara snapshot patch ${two.result.head} -w ${workspace}      (npm run demo -- --verbose: every step)`);

// Non-zero when the demo did not show what it is for (a run failed, or its memory was not written).
if ([one.result, two.result].some((r) => r.outcome !== 'completed' || r.pending)) process.exitCode = 1;
