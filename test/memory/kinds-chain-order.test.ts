import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { TranscriptBuilder } from './phase1/build.js';

// A fix that is a chain is written in the order it ran ("What worked: `a`, then `b`"), so the next agent retypes it
// top to bottom; phase 2 reads the last command of that chain as the one that had failed.
describe('a chain fix is written in the order it ran', () => {
  it('setup first, then the command that passed', () => {
    const b = new TranscriptBuilder('Add a --csv flag to the report script.')
      .bash('cd /workspace && prove -l t', 1, "t/report.t .. Can't locate Text/CSV.pm in @INC (you may need to install the Text::CSV module)\nResult: FAIL")
      .bash('cd /workspace && cpanm --installdeps .', 1, "! Can't write to /usr/local/share/perl/5.36.0: Permission denied")
      .bash('cd /workspace && cpanm -L local --installdeps . 2>&1 | tail -1', 0, '1 distribution installed')
      .bash('cd /workspace && prove -Ilocal/lib/perl5 -l t', 0, 'All tests successful.\nResult: PASS')
      .say('Done.');
    const texts = extractDeterministic(viewRollout(b.end(), 'r')).map((m) => m.text);
    expect(texts.find((t) => t.includes('What worked'))).toMatch(/What worked: `cpanm -L local --installdeps \.`, then `prove -Ilocal\/lib\/perl5 -l t`\.$/);
  });

  it('phase 2 reads the last command of the chain as the workaround', () => {
    const c: Candidate = {
      kind: 'pitfall',
      text: 'In this environment `dart test` failed: “Could not find package build_runner”. What worked: `dart pub get --offline`, then `export PUB_CACHE=/opt/pub-cache && dart test`.',
      sources: ['r1'],
      importance: 4,
      at: '2026-04-08',
      order: 1,
      count: 1,
      ids: new Set(['m-1']),
      keywords: [],
    };
    expect(dropSuperseded([c], [{ order: 0, passed: ['dart test'], ran: ['dart test'] }]).kept).toEqual([]);
  });
});
