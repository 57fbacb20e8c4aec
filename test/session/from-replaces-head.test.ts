/**
 * `run --from <older snapshot>` put its code on the head and kept the head it replaced nowhere (twelfth new-user
 * trial, F23): the summary said only "lineage → head …", and a later `snapshot prune --keep 1` deleted the only
 * snapshot of that work. Now the replaced head is kept on the branch `LINEAGE@replaced-<rollout-id>` (which prune
 * keeps), and the summary says where it is and how to compare or bring it back. Real Docker sandbox, the scripted
 * Messages server as the model.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { pruneSnapshots } from '../../src/snapshot/maintenance.js';
import type { DirectoryStore } from '../../src/snapshot/store/dir-store.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let first: SessionResult;
let second: SessionResult;
let third: SessionResult;

beforeAll(async () => {
  dirs = scratch('from-replaces');
  server = await startMessagesServer([
    turn(toolUse('bash', { command: 'echo one > a.txt' })),
    turn(text('Wrote a.txt.')),
    turn(toolUse('bash', { command: 'echo two > b.txt' })),
    turn(text('Wrote b.txt.')),
    turn(toolUse('bash', { command: 'echo three > c.txt' })),
    turn(text('Wrote c.txt.')),
  ]);
  const config = testConfig(dirs.home, server.url);
  first = await runSession({ workspace: dirs.workspace, task: 'Write a.txt.', config, lineage: 'work' });
  second = await runSession({ workspace: dirs.workspace, task: 'Write b.txt.', config, lineage: 'work' });
  third = await runSession({ workspace: dirs.workspace, task: 'Write c.txt.', config, lineage: 'work', from: first.workspaceSnapshot as string });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('a run --from an older snapshot', () => {
  it('keeps the head it replaced on a branch, which prune keeps', async () => {
    expect(third.outcome).toBe('completed');
    expect(third.start.headAtStart).toBe(second.head);
    expect(third.replacedHead).toEqual({ name: `work@replaced-${third.rolloutId}`, snapshot: second.head });
    const store = await openStore(join(dirs.home, 'store'));
    expect(await store.getBranch(`work@replaced-${third.rolloutId}`)).toBe(second.head);
    await pruneSnapshots(store as DirectoryStore, { keep: 1, lineage: 'work', graceMs: 0 });
    expect((await store.get(second.head as string)).id).toBe(second.head);
  });

  it('says so in the summary, with how to compare and bring it back', () => {
    const summary = formatSummary(third);
    expect(summary).toContain(`the head before it (${second.head}) is kept on branch work@replaced-${third.rolloutId}`);
    expect(summary).toContain(`mnemara lineage reset work ${second.head}`);
  });

  it('a run on the head keeps no such branch', () => {
    expect(second.replacedHead).toBeUndefined();
  });
});
