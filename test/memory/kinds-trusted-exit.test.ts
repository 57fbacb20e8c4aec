import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

function cand(text: string, order: number, kind: Candidate['kind']): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 4, at: `2026-06-0${9 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

// Issue 12 kind 1 (heldout-h round 13): the test script was fixed to fail properly, said only in the run's own
// language; the run printed the status itself and saw it non-zero on a failing case. That is the signal.
describe('a test command whose printed status is non-zero on failures: its exit code can be trusted', () => {
  it('phase 1 states it when the run printed the status, not for an ordinary failing run', async () => {
    const checked = await extract(
      new TranscriptBuilder('Voeg de BTW-regel toe.')
        .bash('cd /workspace && bats tests; echo "status=$?"', 0, 'ok 1 - totals\nnot ok 2 - vat\n1 failed, 1 passed\nstatus=1')
        .edit('/workspace/src/vat.zig')
        .bash('bats tests', 0, '2 passed')
        .end('completed'),
    );
    expect(checked.memories.find((m) => m.kind === 'fact' && m.text.includes('exits non-zero when tests fail'))?.text).toMatch(/^`bats tests` exits non-zero when tests fail .*status 1/);
    const plain = await extract(
      new TranscriptBuilder('Voeg de BTW-regel toe.').bash('bats tests', 1, 'not ok 2 - vat\n1 failed, 1 passed').edit('/workspace/src/vat.zig').bash('bats tests', 0, '2 passed').end('completed'),
    );
    expect(plain.memories.some((m) => m.text.includes('exits non-zero'))).toBe(false);
  });

  it('phase 2: the newer fact retires the older "exits 0 even when tests fail" on the same command only', () => {
    const old = cand('`bats tests` exits 0 even when tests fail (its output said “1 failed, 1 passed” with status 0): read the summary it prints, not the exit code.', 1, 'pitfall');
    const other = cand('`make check` exits 0 even when tests fail (its output said “2 failed” with status 0): read the summary it prints, not the exit code.', 1, 'pitfall');
    const now = cand('`bats tests` exits non-zero when tests fail (its output said “1 failed, 1 passed” with status 1): its exit code can be trusted.', 0, 'fact');
    const r = dropSuperseded([old, other, now]);
    expect(r.superseded.map((s) => s.stale)).toEqual([old]);
    expect(r.kept).toEqual([other, now]);
  });
});
