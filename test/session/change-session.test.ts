/**
 * Issue 15 through `runSession`: a session started from the lineage head snapshots only what its agent changed
 * (the workspace listing inside the container), reports where its time went (`timings.parts`, `--timings`),
 * and its head holds exactly what the agent left: an edit behind a forged mtime, a deletion, a FIFO listed as
 * skipped. Real Docker engine; the model is the scripted server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatTimings } from '../../src/cli/timings.js';
import { runSession } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A model that runs `command` once when the task asks for it, then ends the run. */
async function model(command: string): Promise<MessagesServer> {
  const server = await startMessagesServer((req) => {
    const act = JSON.stringify(req.body).includes('Edit the project') && lastToolResults(req).length === 0;
    return act ? turn(toolUse('bash', { command })) : turn(text('Done.'));
  });
  cleanups.push(() => server.close());
  return server;
}

describe('a session from the lineage head', () => {
  it('snapshots only the changes, and the new head holds exactly what the agent left', async () => {
    const s = scratch();
    cleanups.push(s.cleanup);
    const server = await model(
      [
        'set -e',
        'f=src/durations/parse.py; m=$(stat -c %y "$f"); sz=$(stat -c %s "$f")',
        // Same size, other bytes, mtime put back: only ctime shows the edit.
        'head -c "$sz" /dev/zero | tr "\\0" "#" > "$f"; touch -d "$m" "$f"',
        'rm README.md',
        'mkfifo left-behind.fifo',
        'echo new > added.txt',
      ].join('\n'),
    );
    const config = testConfig(s.home, server.url);
    const first = await runSession({ workspace: s.workspace, task: 'Look around.', config, lineage: 'chg' });
    expect(first.workspaceSnapshotMode).toMatchObject({ kind: 'full' }); // a fresh copy has no baseline
    const second = await runSession({ workspace: s.workspace, task: 'Edit the project.', config, lineage: 'chg' });
    expect(second.workspaceSnapshotMode).toMatchObject({ kind: 'changes', deleted: 1 });
    const parts = second.timings.parts ?? {};
    for (const k of ['restore.fill', 'restore.listing', 'restore.trusted-layout', 'snapshot.stop-processes', 'snapshot.redact-notes', 'snapshot.redact-git-messages', 'snapshot.credential-files', 'snapshot.token-files', 'snapshot.secret-keys', 'snapshot.listing', 'snapshot.transfer-out', 'snapshot.pack', 'publish.layout-copy', 'publish.head']) {
      expect(parts[k], k).toBeGreaterThanOrEqual(0);
    }
    expect(parts['snapshot.full-stream']).toBeUndefined();
    expect(formatTimings(second)).toMatch(/snapshot-workspace\s+\d+\n\s+stop-processes\s+\d+\n\s+redact-notes\s+\d+\n\s+redact-git-messages\s+\d+\n\s+secret-keys\s+\d+\n\s+credential-files\s+\d+\n\s+token-files\s+\d+\n\s+listing\s+\d+[\s\S]*workspace snapshot from the changes only/);

    const store = await openStore(join(s.home, 'store'));
    const ws = await store.get(second.workspaceSnapshot!);
    expect(ws.skipped?.map((x) => x.path)).toContain('left-behind.fifo');
    const out = join(s.root, 'out');
    await store.restoreToDirectory(second.head!, out);
    expect(existsSync(join(out, 'README.md'))).toBe(false);
    expect(existsSync(join(out, 'left-behind.fifo'))).toBe(false);
    expect(readFileSync(join(out, 'added.txt'), 'utf8')).toBe('new\n');
    const py = 'src/durations/parse.py';
    expect(readFileSync(join(out, py), 'utf8')).toMatch(/^#+$/);
    // The session after it starts from that head; its agent changes nothing: only its own transcript comes out.
    const third = await runSession({ workspace: s.workspace, task: 'Look again.', config, lineage: 'chg' });
    expect(third.workspaceSnapshotMode).toMatchObject({ kind: 'changes', paths: 2, deleted: 0 }); // sessions/ and sessions/<rollout>.jsonl
  }, 300_000);
});
