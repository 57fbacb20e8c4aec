/**
 * Live memory update: what the agent writes with the memory tool during the run lands in the workspace's
 * `memories/`, is in the workspace snapshot, and survives the pipeline into the lineage head.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let r: SessionResult;

beforeAll(async () => {
  dirs = scratch();
  server = await startMessagesServer([
    turn(toolUse('memory', { command: 'create', path: '/memories/notes.md', file_text: 'The tests run with ./scripts/check.sh.\n' })),
    turn(text('Noted.')),
  ]);
  r = await runSession({ workspace: dirs.workspace, task: 'Note how the tests run.', config: testConfig(dirs.home, server.url), lineage: 'live' });
}, 120_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

it("keeps the agent's memory-tool writes in the workspace snapshot and at the head", async () => {
  expect(r.outcome).toBe('completed');
  const tools = (server.messageRequests[0]?.body.tools as { name: string }[]).map((t) => t.name);
  expect(tools).toContain('memory');
  const store = await openStore(join(dirs.home, 'store'));
  for (const id of [r.workspaceSnapshot, r.head]) {
    const out = join(dirs.root, `tree-${id}`);
    await store.restoreToDirectory(id as string, out, { paths: ['memories'] });
    expect(readFileSync(join(out, 'memories', 'notes.md'), 'utf8')).toBe('The tests run with ./scripts/check.sh.\n');
  }
});
