import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });
const exitZero = (ms: Array<{ kind: string; text: string }>) => ms.filter((m) => m.kind === 'pitfall' && m.text.includes('exits 0 even when tests fail'));

// Issue 12 item 1 (a test command exiting 0 when tests fail), read from the order of steps: the command said 0
// and the same program's report, run right after with nothing changed, failed on the same tests.
describe('a test command that exits 0 while its own report, run right after, fails', () => {
  it('an unknown build tool: `check` exits 0, `check-results` right after exits 2 on failures', async () => {
    const b = new TranscriptBuilder('Korjaa laskutusmoduulin pyöristys.')
      .bash('kbuild check --all', 0, 'running 14 suites\ndone in 3.2s')
      .say('Tarkistan tulokset.')
      .bash('kbuild check-results', 2, 'billing/round_test: FAIL\n14 suites, 2 failed');
    const [pitfall] = exitZero((await extract(b.end())).memories);
    expect(pitfall?.text).toContain('`kbuild check --all` exits 0 even when tests fail');
    expect(pitfall!.text).toContain('Check the result with `kbuild check-results`');
  });

  it('another subcommand that does not extend the first, of a tool not known as a test runner, proves nothing', async () => {
    const b = new TranscriptBuilder('Fix the rounding.').bash('hxtest run', 0, 'ok').bash('hxtest report', 1, '3 failures');
    expect(exitZero((await extract(b.end())).memories)).toHaveLength(0);
  });

  it('an edit between the two: the failures may be the edit\'s, no lesson', async () => {
    const b = new TranscriptBuilder('Korjaa pyöristys.')
      .bash('kbuild check --all', 0, 'done')
      .edit('/workspace/billing/round.k')
      .bash('kbuild check-results', 2, '14 suites, 2 failed');
    expect(exitZero((await extract(b.end())).memories)).toHaveLength(0);
  });
});
