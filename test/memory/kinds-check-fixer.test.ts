import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

// Issue 12 kind 2 (heldout-h round 13): a formatter's check failed and the same formatter without its check flag
// rewrote the files: the code changed, no lesson of the environment — for any tool, not only the known ones.
describe('a check and its fixer, by flag, for a tool the rules do not name', () => {
  it('`nph --check src tests` failed, `nph src tests` passed: no pitfall', async () => {
    const b = new TranscriptBuilder('Add the retry counter to the Nim client.')
      .bash('nph --check src tests', 1, 'src/client.nim would be reformatted\n1 file would be reformatted')
      .bash('nph src tests', 0, 'formatted 1 file');
    const e = await extract(b.end('completed'));
    expect(e.memories.filter((m) => m.kind === 'pitfall' || m.kind === 'procedure')).toEqual([]);
  });

  it('the check passing in another way is still a lesson: a variable in front of the same check', async () => {
    const b = new TranscriptBuilder('Add the retry counter to the Nim client.')
      .bash('nph --check src tests', 127, 'nph: error while loading shared libraries: libpcre.so.3: cannot open shared object file')
      .bash('LD_LIBRARY_PATH=/opt/pcre/lib nph --check src tests', 0, 'all files formatted');
    const e = await extract(b.end('completed'));
    expect(e.memories.map((m) => m.text).join('\n')).toContain('LD_LIBRARY_PATH=/opt/pcre/lib');
  });
});
