/**
 * The demo's two runs, end to end: real Docker sandbox, real snapshot store, real agent loop on the real SDK
 * (pointed at the scripted Messages server, whose policy reacts to the real tool results), real deterministic
 * pipeline. Run 1 fixes the bug and learns how the tests run; run 2 starts from the lineage head with that lesson.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { runSession, type SessionEvent, type SessionResult } from '../../src/session.js';
import { diffSnapshots } from '../../src/snapshot/diff.js';
import { openStore } from '../../src/snapshot/index.js';
import { ADD_DAYS, FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { startMessagesServer, systemText, type MessagesServer } from '../support/messages-server.js';
import { commandsRun, scratch, testConfig } from './harness.js';

const LINEAGE = 'durations';
let dirs: ReturnType<typeof scratch>;
let server1: MessagesServer;
let server2: MessagesServer;
let one: SessionResult;
let two: SessionResult;
const events: SessionEvent[] = [];

beforeAll(async () => {
  dirs = scratch();
  server1 = await startMessagesServer(policy(FIX_BUG));
  server2 = await startMessagesServer(policy(ADD_DAYS));
  one = await runSession(
    { workspace: dirs.workspace, task: FIX_BUG.task, config: testConfig(dirs.home, server1.url), lineage: LINEAGE },
    { onEvent: (e) => events.push(e) },
  );
  two = await runSession({ workspace: dirs.workspace, task: ADD_DAYS.task, config: testConfig(dirs.home, server2.url), lineage: LINEAGE });
}, 240_000);

afterAll(async () => {
  await server1?.close();
  await server2?.close();
  dirs?.cleanup();
});

describe('two runs on one lineage', () => {
  it('run 1 fixes the bug, snapshots the workspace and the memory, and reports every step', () => {
    expect(one.outcome).toBe('completed');
    expect(one.start.kind).toBe('fresh');
    expect(one.workspaceSnapshot).toMatch(/^\d{8}T/);
    expect(one.memorySnapshot).toBe(one.head);
    expect(one.pending).toBe(false);
    expect(one.lessons?.added.length).toBeGreaterThan(0);
    const ended = events.flatMap((e) => (e.type === 'progress' && e.progress.phase === 'end' ? [e.progress.step] : []));
    for (const step of ['resolve', 'sandbox', 'restore', 'memory-read', 'agent', 'snapshot-workspace', 'publish', 'memory-pipeline', 'snapshot-memory', 'advance-head', 'cleanup']) {
      expect(ended).toContain(step);
    }
    expect(events.filter((e) => e.type === 'tool' && e.tool.phase === 'end').length).toBe(6);
  });

  it("run 2 starts from run 1's head with run 1's lesson in its system prompt", () => {
    expect(two.start).toEqual({ kind: 'head', snapshotId: one.head, headAtStart: one.head });
    expect(systemText(server1.messageRequests[0]!)).not.toContain('scripts/check.sh');
    const system = systemText(server2.messageRequests[0]!);
    expect(system).toContain('scripts/check.sh');
    // The scripted policy tries the obvious (failing) test command only when memory does not say better.
    expect(commandsRun(one.transcriptPath!)).toContain('python3 -m unittest discover tests');
    expect(commandsRun(two.transcriptPath!)).not.toContain('python3 -m unittest discover tests');
    expect(commandsRun(two.transcriptPath!).slice(0, 2)).toEqual(['grep -n -i -E "test|check" memories/MEMORY.md', './scripts/check.sh']);
  });

  it("leaves MEMORY.md citing run 1's rollout, at a head that is run 2's memory snapshot", async () => {
    const store = await openStore(join(dirs.home, 'store'));
    expect(await store.getHead(LINEAGE)).toBe(two.memorySnapshot);
    const head = await store.get(two.memorySnapshot as string);
    expect(head.kind).toBe('memory');
    expect(head.rolloutIds).toEqual(expect.arrayContaining([one.rolloutId, two.rolloutId]));
    const out = join(dirs.root, 'head');
    await store.restoreToDirectory(head.id, out);
    const { entries } = parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8'));
    const lesson = entries.find((e) => e.text.includes('scripts/check.sh'));
    expect(lesson?.sources).toContain(one.rolloutId);
    // The restored tree is the work of both runs: the tests pass with the fix and the new unit.
    const check = execFileSync('bash', ['scripts/check.sh'], { cwd: out, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(check).toBeDefined();
    expect(readFileSync(join(out, 'src/durations/parse.py'), 'utf8')).toContain('"d": 86400');
  });

  it('snapshot diff between the two heads shows the memory change', async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const d = await diffSnapshots(store, one.head as string, two.head as string);
    const touched = [...d.added, ...d.changed];
    expect(touched).toContain('memories/MEMORY.md');
    expect(touched).toContain(`sessions/${two.rolloutId}.jsonl`);
    expect(touched).toContain('src/durations/parse.py');
    expect(d.textDiffs['memories/MEMORY.md']).toMatch(/^\+.*/m);
  });
});
