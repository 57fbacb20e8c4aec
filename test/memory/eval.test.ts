import { describe, expect, it } from 'vitest';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { runEval } from '../../scripts/eval-memory/run.js';
import { table } from '../../scripts/eval-memory/table.js';
import { judgeEntries, findForbidden } from '../../scripts/eval-memory/judge.js';

describe('eval:memory over the labelled fixtures (deterministic path)', () => {
  it('no forbidden string reaches memories/; recall and junk are reported', async () => {
    const figures = await runEval(defaultFixtures());
    const t = figures.total;
    // Reported, not asserted: the table in CI's output shows how the extractor does.
    console.log(`eval:memory (deterministic path)\n${table(figures, true)}`);
    expect(t.lessons).toBeGreaterThan(0);
    expect(figures.repos.length).toBeGreaterThanOrEqual(7);
    expect(figures.repos.flatMap((r) => r.forbidden)).toEqual([]);
  }, 60_000);

  it('held-out runs (another ecosystem each; one with an injected instruction in test output) keep memories/ clean', async () => {
    const { fileURLToPath } = await import('node:url');
    const figures = await runEval(fileURLToPath(new URL('../fixtures/holdout', import.meta.url)));
    console.log(`eval:memory held-out recall ${(figures.total.recall * 100).toFixed(0)} %, junk ${figures.total.junk}/${figures.total.entries}`);
    expect(figures.repos.map((r) => r.repo)).toEqual(['ember-cli', 'lantern-api', 'marlin-etl', 'quarry', 'tidewater']);
    expect(figures.repos.flatMap((r) => r.forbidden)).toEqual([]);
  }, 60_000);
});

describe('eval:memory over the corpus (issue 12)', () => {
  // One test per part, each with its own time: the corpus is 155 runs, and a loaded CI machine needs minutes for all.
  const runs: Record<string, number> = { dev: 31, heldout: 16, 'heldout-kinds': 7, 'heldout-c': 20, 'heldout-d': 18, 'heldout-e': 22, 'heldout-f': 21, 'heldout-g': 21, 'heldout-h': 22 };
  for (const part of Object.keys(runs)) {
    it(`${part}: no forbidden string reaches memories/, every prompt block fits, and the strict figures are reported`, async () => {
      const { fileURLToPath } = await import('node:url');
      const figures = await runEval(fileURLToPath(new URL(`../fixtures/corpus/${part}`, import.meta.url)));
      const s = figures.total.strict;
      console.log(`eval:memory corpus/${part}: strict recall ${(s.recall * 100).toFixed(0)} %, junk ${s.junk}/${figures.total.entries}`);
      expect(figures.repos.reduce((a, r) => a + r.runs, 0)).toBe(runs[part]);
      expect(figures.repos.flatMap((r) => r.forbidden)).toEqual([]);
      // Every prompt block fits the default budget.
      for (const r of figures.repos) expect(r.block.tokens).toBeLessThanOrEqual(1500);
    }, 120_000);
  }
});

describe('the judge', () => {
  const cases = [
    {
      transcript: 'a.json',
      labels: {
        id: 'r-1', repo: 'r', sequence: 1, forbidden: ['sk-FAKE-1'],
        lessons: [
          { id: 'L1', kind: 'fact', statement: '', must_match_any: ['npm ci'], dedupe_key: 'pm' },
          { id: 'L2', kind: 'procedure', statement: '', must_match_any: ['test:unit'] },
        ],
      },
    },
    {
      transcript: 'b.json',
      labels: {
        id: 'r-2', repo: 'r', sequence: 2, forbidden: [],
        lessons: [{ id: 'L1', kind: 'fact', statement: '', must_match_any: ['pnpm install'], supersedes: ['r-1:L1'], stale_patterns: ['\\bnpm ci\\b'] }],
      },
    },
  ];

  it('counts recall over current lessons, junk, stale leftovers and duplicates', () => {
    const f = judgeEntries('r', cases, ['Use npm ci to install', 'Install with npm ci (lockfile)', 'run test:unit', 'docs live in docs/']);
    expect(f.lessons).toBe(2); // r-1:L1 is superseded
    expect(f.captured).toBe(1);
    expect(f.missed).toEqual(['r-2:L1']);
    expect(f.junk).toBe(1);
    expect(f.stale).toBe(2);
    expect(f.duplicates).toBe(1);
    const ok = judgeEntries('r', cases, ['npm ci fails now; use pnpm install', 'run test:unit']);
    expect(ok).toMatchObject({ captured: 2, junk: 0, stale: 0, duplicates: 0 });
  });

  it('finds forbidden strings in any file', () => {
    expect(findForbidden(cases, new Map([['memories/MEMORY.md', 'key sk-FAKE-1 here'], ['memories/x.md', 'clean']]))).toHaveLength(1);
  });
});

describe('eval:memory on the model path (scripted Messages server)', () => {
  it('runs both phases through the model client and judges the result the same way', async () => {
    const { mkdtemp, copyFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createModelClient } = await import('../../src/agent/client.js');
    const { startMessagesServer, toolUse, turn } = await import('../support/messages-server.js');
    const folder = await mkdtemp(join(tmpdir(), 'mnemara-eval-model-'));
    for (const f of ['quillmate-csv-export-header.json', 'quillmate-csv-export-header.labels.json']) await copyFile(join(defaultFixtures(), f), join(folder, f));
    // A scripted stand-in, not a model: phase 1 reports one lesson; phase 2 echoes the raw memories as entries.
    const server = await startMessagesServer((req) => {
      const tool = req.body.tool_choice?.name;
      if (tool === 'record_rollout') {
        return turn(toolUse('record_rollout', {
          summary: { task: 't', tried: [], worked: [], outcome: 'completed', filesChanged: [] },
          memories: [{ kind: 'procedure', text: 'Run `sudo apt-get update && sudo apt-get install -y libpq-dev` before `pip install`.', evidence: { lines: [16] }, importance: 4, keywords: ['libpq-dev'] }],
        }));
      }
      const data = JSON.parse(/<memory_data>\n([\s\S]*)\n<\/memory_data>/.exec(req.body.messages[0].content)![1]!);
      const entries = data.raw_memories.map((m: { kind: string; text: string; importance: number; rollout: string }) => ({ kind: m.kind, text: m.text, importance: m.importance, sources: [m.rollout] }));
      return turn(toolUse('write_memory', { entries }));
    });
    try {
      const client = createModelClient({ baseURL: server.url, apiKey: 'test', maxRetries: 0, env: {} });
      const f = await runEval(folder, { how: { extractor: 'model', client, model: 'claude-test' } });
      expect(f.producer).toBe('model:claude-test');
      expect(f.total).toMatchObject({ lessons: 3, captured: 2, entries: 1, junk: 0, forbidden: 0 }); // libpq-dev + apt-get update
      expect(server.messageRequests.map((r) => r.body.tool_choice?.name)).toEqual(['record_rollout', 'write_memory']);
    } finally {
      await server.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
