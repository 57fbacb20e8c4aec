/**
 * Three sessions at once on one lineage, each of whose agents adds a bullet of its own to memories/MEMORY.md and
 * a line to a shared note (new-user trial 27 F1, F2): every bullet and every line reaches the head. Before, a
 * session whose head move lost the race after its consolidation took the other side's MEMORY.md whole (its
 * bullet has no raw memory to come back from), and a note both sides appended to kept one side's lines at its
 * path and the other's in a `.ours-` copy nobody reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
const names = ['north', 'south', 'west'];
const results: SessionResult[] = [];

beforeAll(async () => {
  dirs = scratch();
  // Each task names its agent; the agent's first turn writes its bullet and note line, its second ends the run.
  server = await startMessagesServer((req) => {
    const first = req.body.messages[0];
    const task = typeof first.content === 'string' ? first.content : first.content.map((c: { text?: string }) => c.text ?? '').join('');
    const name = names.find((n) => task.includes(`agent ${n}`)) ?? 'seed';
    const done = req.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
    if (done > 0) return turn(text(`Done: ${name} wrote its note.`));
    const command =
      name === 'seed'
        ? 'bash scripts/check.sh; mkdir -p memories && printf -- "- seed line\\n" > memories/shared.md'
        : `printf -- "- ${name} line\\n" >> memories/shared.md && printf -- "- The ${name} service is started with \\\`make ${name}-up\\\` before its tests.\\n" >> memories/MEMORY.md && sleep 1`;
    return turn(toolUse('bash', { command }));
  });
  const config = testConfig(dirs.home, server.url);
  await runSession({ workspace: dirs.workspace, task: 'seed the lineage', config, lineage: 'hands' });
  results.push(
    ...(await Promise.all(
      names.map((n) => runSession({ workspace: dirs.workspace, task: `agent ${n}: note how your service starts`, config, lineage: 'hands' })),
    )),
  );
}, 600_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('three sessions at once, each adding to the same memory files', () => {
  it('all complete and at least one found the head moved', () => {
    console.log(JSON.stringify(results.map((r) => ({ c: r.headConflicts, l: r.lessons, b: r.branch, p: r.pending, e: r.pipelineError }))));
    expect(results.map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(results.reduce((n, r) => n + r.headConflicts, 0)).toBeGreaterThanOrEqual(1);
  });

  it("keeps every agent's MEMORY.md bullet and every line of the shared note on the head", async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const head = await store.getHead('hands');
    const out = join(dirs.root, 'hands-head');
    await store.restoreToDirectory(head as string, out, { paths: ['memories'] });
    const memoryMd = readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8');
    const summary = readFileSync(join(out, 'memories', 'memory_summary.md'), 'utf8');
    const shared = readFileSync(join(out, 'memories', 'shared.md'), 'utf8');
    for (const n of names) {
      expect(memoryMd).toContain(`make ${n}-up`);
      expect(summary).toContain(`make ${n}-up`);
      expect(shared).toContain(`- ${n} line`);
    }
    expect(shared.split('\n').filter((l) => l === '- seed line')).toHaveLength(1);
    expect(readdirSync(join(out, 'memories')).filter((f) => f.includes('.ours-'))).toEqual([]);
  });

  // Trial 27 F5: a session whose head move merged another run's memory listed that run's lessons as its own added.
  it("lists as added only the lessons citing its own run; every agent's bullet is one run's addition", async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'hands-added');
    await store.restoreToDirectory((await store.getHead('hands')) as string, out, { paths: ['memories'] });
    const sources = new Map(parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).entries.map((e) => [e.id, e.sources]));
    for (const r of results) for (const id of r.lessons?.added ?? []) expect(sources.get(id), `${r.rolloutId} lists ${r.lessons!.text[id]}`).toContain(r.rolloutId);
    for (const n of names) {
      const owners = results.filter((r) => Object.entries(r.lessons?.text ?? {}).some(([id, t]) => r.lessons!.added.includes(id) && t.includes(`make ${n}-up`)));
      expect(owners, n).toHaveLength(1);
    }
  });
});
