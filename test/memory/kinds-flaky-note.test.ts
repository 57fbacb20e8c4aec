import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { closeFinishedTasks, fixedFlakyFact, type RolloutOutcome } from '../../src/memory/phase2/task-state.js';

function cand(text: string, order: number, kind: Candidate['kind']): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 3, at: `2026-07-0${9 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

function run(order: number, changed: string[], passed: string[], outcome = 'completed'): RolloutOutcome {
  return { rolloutId: `r${order}`, order, task: 'Rendi deterministico il test della cache.', outcome, passed, exited0: passed, changed };
}

// Issue 12 kind 5 (heldout-h round 13): the agent noted a flaky test in its own words; a later run rewrote that
// test file (saying so only in its language) and the suite passed. The note must not outlive the fix.
describe('an agent\'s note about a flaky test, retired when a later run changed that test file and passed', () => {
  const note = cand('Noted by the agent at the end of a run (Add the TTL sweep…): “`expires_after_ttl` in `test/quota/cache_test.exs` is flaky: it sleeps 20 ms on wall-clock time and fails under load.”', 1, 'procedure');

  it('retires the note and states that the test is no longer known as flaky', () => {
    const r = closeFinishedTasks([note], [run(0, ['lib/quota/cache.ex', 'test/quota/cache_test.exs'], ['mix test'])]);
    expect(r.kept).toEqual([]);
    expect(r.fixed.map((f) => f.tests)).toEqual([['expires_after_ttl']]);
    expect(fixedFlakyFact(r.fixed[0]!, { rolloutId: 'r0', time: '2026-07-09' }).text).toMatch(/^`expires_after_ttl` is no longer known as flaky/);
  });

  it('keeps it when the later run did not touch that file, did not pass a test run, or did not finish', () => {
    expect(closeFinishedTasks([note], [run(0, ['lib/quota/cache.ex'], ['mix test'])]).kept).toEqual([note]);
    expect(closeFinishedTasks([note], [run(0, ['test/quota/cache_test.exs'], [])]).kept).toEqual([note]);
    expect(closeFinishedTasks([note], [run(0, ['test/quota/cache_test.exs'], ['mix test'], 'max_turns')]).kept).toEqual([note]);
  });
});
