import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

describe('issue 12, kind 3: failed and partial runs keep what they found', () => {
  const longCause =
    'The image has Go 1.19 on PATH but go.mod needs 1.22; the toolchain under /opt/go works when it is first on PATH. ' +
    'Root cause of the remaining failure: newTransport now takes the idle duration, and the two callers in proxy.go and pool.go still pass nothing. ' +
    'Plan: (1) pass cfg.UpstreamIdleTimeout in proxy.go, (2) pass p.idle in pool.go, (3) add a test for the default of 90s.';

  it('an agent that stops on purpose: the outcome says so, and its final message is kept in whole sentences', async () => {
    const b = new TranscriptBuilder('Make the idle timeout configurable.').bash('go build ./...', 1, 'go: go.mod requires go >= 1.22.0 (running go 1.19.8)').say(longCause);
    const e = await extract(b.end('error'));
    const state = e.memories.find((m) => m.kind === 'task_state')!;
    expect(state.text).toMatch(/^Unfinished \(the agent stopped on purpose\)/);
    expect(state.text).not.toMatch(/stopped by an error/);
    // The environment sentence (it cites /opt/go) outlives the task: it is kept in the run's constraint fact.
    const fact = e.memories.find((m) => m.kind === 'fact' && m.text.startsWith('Found by a run that did not finish'))!;
    expect(`${fact.text} ${state.text}`).toContain('the toolchain under /opt/go works when it is first on PATH.');
    expect(state.text).toContain('(3) add a test for the default of 90s.');
    expect(e.summary.outcome).toMatch(/the agent stopped on purpose/);
  });

  it('a run cut at the turn limit keeps the findings of its notes within the budget, never a cut sentence', async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `Step ${i} still needs the fixture rebuilt because the schema changed.`).join(' ');
    const b = new TranscriptBuilder('Refactor the store.').say(longCause).say(filler).bash('go build ./...', 1, 'store.go:22:4: s.mu undefined');
    const state = (await extract(b.end('max_turns'))).memories.find((m) => m.kind === 'task_state')!;
    expect(state.text).toMatch(/^Unfinished \(stopped at the turn limit\)/);
    const found = /Findings \(the agent's words\): “([^”]*)”/.exec(state.text)![1]!;
    expect(found.length).toBeLessThanOrEqual(900);
    expect(found).toMatch(/[.!?]$/);
    for (const s of found.split(/(?<=\.)\s+/)) expect(s).toMatch(/[.!?]$/);
  });

  it('a run stopped before it did anything (Ctrl-C at the start, an endpoint that never answered) leaves no note', async () => {
    for (const outcome of ['interrupted', 'error', 'max_turns'] as const) {
      const e = await extract(new TranscriptBuilder('Speed up the CSV export.').end(outcome));
      expect(e.memories.filter((m) => m.kind === 'task_state'), outcome).toEqual([]);
    }
    // One step is work to pick up.
    const one = await extract(new TranscriptBuilder('Speed up the CSV export.').bash('make bench', 2, 'no rule to make target').end('interrupted'));
    expect(one.memories.some((m) => m.kind === 'task_state')).toBe(true);
  });
});
