/**
 * Thirteenth new-user trial F17: the agent wrote a 22 MB MEMORY.md with bash (past the memory tool's cap), and the
 * host's pipeline took 64 s and 1.2 GB judging its 400,000 "edits". An agent's MEMORY.md over 1 MiB is not read
 * as proposals: a warning says so, and the lineage's MEMORY.md stays. Real Docker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { withStderr } from '../support/stderr.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let result: SessionResult;
let said = '';

beforeAll(async () => {
  dirs = scratch('agent-memory-size');
  server = await startMessagesServer([
    turn(toolUse('bash', { command: "mkdir -p memories && for i in $(seq 1 30000); do echo \"- lesson number $i: always run make test$i before commit\"; done > memories/MEMORY.md && wc -c memories/MEMORY.md" })),
    turn(text('Wrote many lessons.')),
  ]);
  const run = await withStderr(() => runSession({ workspace: dirs.workspace, task: 'Note lessons.', config: testConfig(dirs.home, server.url), lineage: 'bigmem' }));
  result = run.value;
  said = run.stderr;
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe("an agent's MEMORY.md over 1 MiB", () => {
  it('is not judged line by line: a warning says so and no line of it becomes a lesson', async () => {
    expect(result.outcome).toBe('completed');
    expect(said).toContain('the MEMORY.md the agent wrote is over the size a handbook can have');
    const out = join(dirs.root, 'head');
    await (await openStore(join(dirs.home, 'store'))).restoreToDirectory(result.head as string, out, { paths: ['memories'] });
    expect(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).not.toContain('lesson number');
  });
});
