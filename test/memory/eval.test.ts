import { describe, expect, it } from 'vitest';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { runEval } from '../../scripts/eval-memory/run.js';
import { judgeEntries, findForbidden } from '../../scripts/eval-memory/judge.js';

describe('eval:memory over the labelled fixtures (deterministic path)', () => {
  it('no forbidden string reaches memories/; recall and junk are reported', async () => {
    const figures = await runEval(defaultFixtures());
    const t = figures.total;
    // Reported, not asserted: the table in CI shows how the extractor does.
    console.log(`eval:memory recall ${(t.recall * 100).toFixed(0)} % (${t.captured}/${t.lessons}), junk ${(t.junkRate * 100).toFixed(0)} % (${t.junk}/${t.entries}), duplicates ${t.duplicates}, stale ${t.stale}, forbidden ${t.forbidden}`);
    expect(figures.repos.length).toBeGreaterThanOrEqual(7);
    expect(figures.repos.flatMap((r) => r.forbidden)).toEqual([]);
  }, 60_000);
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
