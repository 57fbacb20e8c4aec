/**
 * Issue 12, kinds found on the tuned part `heldout-n` in round 22 (each test failed before its rule changed; the
 * transcripts are written for these tests, with other tools and words than the corpus runs):
 * - a test command whose output reports several suites, one of them empty ("running 0 tests" for the doc tests
 *   beside "running 9 tests"), ran tests: it is no "runs no tests" pitfall when a narrower command ran later.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

const texts = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);

describe('a report of several suites, one of them empty, ran tests', () => {
  it('a Rust workspace whose doc tests are empty, then one test target', () => {
    const b = new TranscriptBuilder('Add a test for the grid snapping.')
      .bash('cd /workspace && cargo test --all', 0, 'running 12 tests\ntest result: ok. 12 passed; 0 failed\nrunning 3 tests\ntest result: ok. 3 passed; 0 failed\n   Doc-tests snapgrid\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed')
      .edit('/workspace/tests/snap.rs', 'create')
      .bash('cd /workspace && cargo test --test snap', 0, 'running 2 tests\ntest result: ok. 2 passed; 0 failed');
    expect(texts(b).filter((t) => t.includes('runs no tests'))).toEqual([]);
  });

  it('a make target running two unittest suites, the second empty', () => {
    const b = new TranscriptBuilder('Fix the date parsing in the importer.')
      .bash('cd /workspace && make check', 0, 'python -m unittest discover -s importer\n..............\nRan 14 tests in 0.210s\n\nOK\npython -m unittest discover -s contrib\n\nRan 0 tests in 0.000s\n\nOK')
      .bash('cd /workspace && python -m unittest importer.tests.test_dates', 0, '....\nRan 4 tests in 0.020s\n\nOK');
    expect(texts(b).filter((t) => t.includes('runs no tests'))).toEqual([]);
  });

  it('a command that ran nothing at all is still the pitfall', () => {
    const b = new TranscriptBuilder('Fix the date parsing in the importer.')
      .bash('cd /workspace && python -m unittest', 0, '\nRan 0 tests in 0.000s\n\nOK')
      .bash('cd /workspace && python -m pytest importer', 0, '18 passed in 0.31s');
    expect(texts(b).filter((t) => t.includes('runs no tests'))).toHaveLength(1);
  });
});
