/**
 * Trial 23 F7 and F14: a run whose code lost the race (another writer moved the head while it ran) is kept on a
 * branch, but its summary said "the result is snapshot <head>" with `apply --lineage` ("bring it"), and
 * `run --apply` wrote the head, i.e. the OTHER session's changes, and not its own (exit 0). The result is the
 * branch: the summary names it with `apply --from BRANCH`, and `runCodeSnapshot` (what `--apply` writes) is its
 * snapshot. Real Docker session, scripted model; the other writer is a `snapshot create` made mid-run.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, runCodeSnapshot } from '../../src/cli/commands/run.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from '../session/harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let result: SessionResult;
const L = 'race/app';

beforeAll(async () => {
  dirs = scratch();
  const store = await openStore(join(dirs.home, 'store'));
  // The lineage's first snapshot: the host tree as it is.
  const first = await store.create({ dir: dirs.workspace }, { lineage: L, kind: 'workspace' });
  await store.advanceHead(L, null, first.id);
  server = await startMessagesServer([
    turn(toolUse('bash', { command: 'echo ours > OURS.txt' })),
    async () => {
      // Another writer lands its own code on the head while this run is still going.
      const other = mkdtempSync(join(tmpdir(), 'mnemara-race-other-'));
      await store.restoreToDirectory(first.id, join(other, 'ws'));
      writeFileSync(join(other, 'ws', 'THEIRS.txt'), 'theirs\n');
      const theirs = await store.create({ dir: join(other, 'ws') }, { lineage: L, kind: 'workspace', parent: first.id });
      await store.advanceHead(L, first.id, theirs.id);
      return turn(text('Done: wrote OURS.txt.'));
    },
  ]);
  result = await runSession({ workspace: dirs.workspace, task: 'write OURS.txt', config: testConfig(dirs.home, server.url), lineage: L });
}, 600_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('a run whose code lost the race', () => {
  it('is kept on a branch, and its result is that branch, not the head', async () => {
    expect(result.branch?.name).toBe(`${L}@${result.rolloutId}`);
    const code = runCodeSnapshot(result);
    expect(code).toBe(result.branch?.snapshot);
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(mkdtempSync(join(tmpdir(), 'mnemara-race-out-')), 'x');
    await store.restoreToDirectory(code!, out);
    expect(readFileSync(join(out, 'OURS.txt'), 'utf8')).toBe('ours\n');
    expect(existsSync(join(out, 'THEIRS.txt'))).toBe(false);
  });

  it('the summary says where its code is and brings the branch, not the head', () => {
    const text = formatSummary(result, { dir: dirs.workspace });
    expect(text).toContain(`this run's code is on branch ${result.branch!.name}`);
    expect(text).toContain(`mnemara snapshot patch ${result.branch!.snapshot} -w `);
    expect(text).toContain(`--from ${result.branch!.name}`);
    expect(text).not.toMatch(/bring it: mnemara apply .*--lineage/);
  });
});
