/**
 * Thirteenth new-user trial F11: a Ctrl-C during the restore still ran the whole tail: a 15 s snapshot of the
 * untouched 354 MB tree, a new lineage and an "interrupted, 0 turns" rollout. Interrupted before the model's
 * first reply, a session saves nothing, because nothing was done: no snapshot, no lineage, no rollout, no
 * transcript left to adopt. Real Docker.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { findOrphans } from '../../src/session/orphans.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let result: SessionResult;

beforeAll(async () => {
  dirs = scratch('cancelled');
  server = await startMessagesServer([turn(text('never asked'))]);
  const stop = new AbortController();
  stop.abort(); // as a Ctrl-C during the restore: the agent starts with the run already interrupted
  result = await runSession({ workspace: dirs.workspace, task: 'Anything.', config: testConfig(dirs.home, server.url), lineage: 'cancelled', signal: stop.signal });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('a session interrupted before the model replied', () => {
  it('saves nothing and leaves nothing to adopt, and says so', async () => {
    expect(result).toMatchObject({ outcome: 'interrupted', turns: 0, nothingSaved: true, workspaceSnapshot: null, head: null });
    // No path to a file that was never written (trial 24: `--json` named one).
    expect(result).not.toHaveProperty('transcriptPath');
    const store = await openStore(join(dirs.home, 'store'));
    expect(await store.getHead('cancelled')).toBeNull();
    expect(await store.list({ lineage: 'cancelled' })).toEqual([]);
    expect(readdirSync(join(dirs.home, 'transcripts')).filter((n) => n.startsWith(result.rolloutId))).toEqual([]);
    expect(await findOrphans(store, dirs.home)).toEqual([]);
    const summary = formatSummary(result);
    expect(summary).toContain("ended before the model's first reply: nothing was done, so nothing was saved");
    // One story (trial 23 F15): no "rollout pending", no transcript line naming a file that does not exist.
    expect(summary).not.toContain('pending');
    expect(summary).not.toContain('transcript');
    expect(summary).toMatch(/rollout +none \(ended before the model's first reply\)/);
    expect(summary).toMatch(/memory +none \(no rollout\)/);
  });
});
