import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

// A command that failed on the whole project and then passed on a part of it (the same program and subcommands,
// limited to paths) passed because it ran less: no fix, no "What worked".
const worked = (b: TranscriptBuilder) =>
  extractDeterministic(viewRollout(b.end(), 'r'))
    .map((m) => m.text)
    .filter((t) => /What worked|got past that error|needs .* first/.test(t));

describe('a rerun limited to paths is no fix', () => {
  it('`python -m pytest` failing on an integration suite, then `python -m pytest tests/unit` passing', () => {
    const b = new TranscriptBuilder('Handle empty invoices.')
      .bash('cd /workspace && python -m pytest', 1, 'ERROR tests/integration/test_db.py - psycopg.OperationalError: connection refused\n1 error in 0.52s')
      .bash('cd /workspace && python -m pytest tests/unit', 0, '41 passed in 0.88s')
      .say('Unit tests pass.');
    expect(worked(b)).toEqual([]);
  });

  it('a version after an option is no path: choosing a compiler still fixes', () => {
    const b = new TranscriptBuilder('Build it.')
      .bash('cd /workspace && stack build', 1, 'Error: [S-4804] Stack requires GHC >= 9.4 for this project')
      .bash('cd /workspace && stack build --compiler ghc-9.4.8', 0, 'Completed 3 action(s).')
      .say('Built with ghc-9.4.8.');
    expect(worked(b).length).toBe(1);
  });
});
