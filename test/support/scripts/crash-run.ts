/**
 * Child process for the crash test (test/agent/transcript-writer.test.ts): runs an agent on a LocalSandbox
 * against a scripted model whose second reply never comes, printing `READY` once the first tool result is
 * written. The parent then SIGKILLs this process. Args: <transcriptPath> <parentDir of the sandbox temp dir, so the parent can remove it>.
 */
import { LocalSandbox } from '../../../src/sandbox/index.js';
import { createModelClient, runAgent } from '../../../src/agent/index.js';
import { startMessagesServer, toolUse, turn, text } from '../messages-server.js';

const transcriptPath = process.argv[2]!;
const sandbox = await LocalSandbox.create({ sessionId: 'crash-run', parentDir: process.argv[3]! });
const server = await startMessagesServer([
  turn(text('working'), toolUse('bash', { command: 'echo before-crash' })),
  turn(text('never sent'), { delayMs: 60_000 }),
]);
await runAgent({
  sandbox,
  client: createModelClient({ baseURL: server.url, env: {} }),
  instructions: 'x',
  task: 'crash me',
  maxTurns: 5,
  maxTokens: 100_000,
  liveUpdate: false,
  memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' },
  transcriptPath,
  onEvent: (e) => {
    if (e.type === 'model_call_started' && e.turn === 2) process.stdout.write('READY\n');
  },
});
