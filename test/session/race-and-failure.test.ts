/**
 * Two sessions on one lineage at once: the second to publish finds the head moved, merges, consolidates again
 * and retries, so both rollouts end up in MEMORY.md. And a run whose model fails mid-run still leaves a workspace
 * snapshot and a transcript.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { error, startMessagesServer, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig, transcriptTypes } from './harness.js';

let dirs: ReturnType<typeof scratch>;
const servers: MessagesServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  dirs?.cleanup();
});
beforeAll(() => {
  dirs = scratch();
});

describe('two sessions on one lineage at once', () => {
  let a: SessionResult;
  let b: SessionResult;
  beforeAll(async () => {
    const server = await startMessagesServer(policy(FIX_BUG)); // the policy is stateless: one server serves both
    servers.push(server);
    const config = testConfig(dirs.home, server.url);
    [a, b] = await Promise.all([
      runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config, lineage: 'race' }),
      runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config, lineage: 'race' }),
    ]);
  }, 240_000);

  it('both complete from the same start; one of them found the head moved and merged', () => {
    expect([a.outcome, b.outcome]).toEqual(['completed', 'completed']);
    expect(a.start.headAtStart).toBeNull();
    expect(b.start.headAtStart).toBeNull();
    expect(a.headConflicts + b.headConflicts).toBeGreaterThanOrEqual(1);
    expect([a.pending, b.pending]).toEqual([false, false]);
  });

  it('both rollouts end up in the head and in MEMORY.md', async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const head = await store.getHead('race');
    expect([a.head, b.head]).toContain(head);
    const manifest = await store.get(head as string);
    expect(manifest.rolloutIds).toEqual(expect.arrayContaining([a.rolloutId, b.rolloutId]));
    const out = join(dirs.root, 'race-head');
    await store.restoreToDirectory(head as string, out, { paths: ['memories', 'sessions'] });
    const { entries } = parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8'));
    const cited = new Set(entries.flatMap((e) => e.sources));
    expect(cited.has(a.rolloutId)).toBe(true);
    expect(cited.has(b.rolloutId)).toBe(true);
    expect(readFileSync(join(out, 'sessions', `${a.rolloutId}.jsonl`), 'utf8')).toContain('session_end');
    expect(readFileSync(join(out, 'sessions', `${b.rolloutId}.jsonl`), 'utf8')).toContain('session_end');
  });
});

describe('a run whose model fails mid-run', () => {
  let r: SessionResult;
  beforeAll(async () => {
    // One good turn (a real command runs), then the API fails on every retry.
    const server = await startMessagesServer((_req, i) =>
      i === 0 ? turn(toolUse('bash', { command: 'echo partial > progress.txt && bash scripts/check.sh' })) : error(500, { retryAfterMs: 1 }),
    );
    servers.push(server);
    r = await runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config: testConfig(dirs.home, server.url), lineage: 'failing' });
  }, 120_000);

  it('ends as error, and still leaves a workspace snapshot and a complete transcript', async () => {
    expect(r.outcome).toBe('error');
    expect(r.agentError).toMatch(/500|api_error|scripted/i);
    expect(r.workspaceSnapshot).not.toBeNull();
    const types = transcriptTypes(r.transcriptPath!);
    expect(types[0]?.type).toBe('session_meta');
    expect(types.map((t) => t.type)).toContain('tool_result');
    expect(types.at(-1)).toMatchObject({ type: 'session_end', outcome: 'error' });
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'failed-ws');
    await store.restoreToDirectory(r.workspaceSnapshot as string, out);
    expect(readFileSync(join(out, 'progress.txt'), 'utf8')).toBe('partial\n');
    expect(readFileSync(join(out, 'sessions', `${r.rolloutId}.jsonl`), 'utf8')).toContain('"outcome":"error"');
    // The lineage moved on: the failed run is what the next session starts from, and its lessons count.
    expect(await store.getHead('failing')).toBe(r.head);
  });
});
