import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { rewritesWhatItChecked } from '../../src/memory/phase1/command-job.js';
import { splitCommand } from '../../src/memory/phase1/commands.js';
import { TranscriptBuilder } from './phase1/build.js';

// A check that failed and then "passed" once the same tool rewrote the file in place (a check flag traded for an
// in-place one) is a dev loop: the code changed. No "What worked" — whatever the tool, known to a list or not.
const seg = (c: string) => splitCommand(c)[0]!;

describe('a check flag traded for an in-place flag is the tool fixing its own complaint', () => {
  it('reads the trade, not an option only added', () => {
    expect(rewritesWhatItChecked(seg('dhall format --check pkg.dhall'), seg('dhall format --inplace pkg.dhall'))).toBe(true);
    expect(rewritesWhatItChecked(seg('pip install x'), seg('pip install -i https://mirror.example/simple x'))).toBe(false);
    expect(rewritesWhatItChecked(seg('cabal build all'), seg('cabal build all -w ghc-9.6.4'))).toBe(false);
  });

  it('gives no fix lesson', () => {
    const b = new TranscriptBuilder('Add the staging package set.')
      .edit('/workspace/keys.conf')
      .bash('cd /workspace && keysort --verify keys.conf', 1, 'error: keys.conf: keys out of order at line 12')
      .bash('cd /workspace && keysort -i keys.conf', 0, '')
      .say('Formatted.');
    const texts = extractDeterministic(viewRollout(b.end(), 'r')).map((m) => m.text);
    expect(texts.filter((t) => t.includes('What worked'))).toEqual([]);
  });
});
