import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

// Issue 12 (heldout-h round 13): "Run the tests with `npx hardhat test`" taught nothing — a tool's own bare
// `test` subcommand is what any agent tries first, whether or not the rules name the tool.
describe('a tool\'s bare test subcommand is no project-specific test command', () => {
  it('`scarb test` that passed is not stored', async () => {
    const bare = await extract(new TranscriptBuilder('Add the fee table to the Cairo ledger.').edit('/workspace/src/fees.cairo').bash('scarb test', 0, 'test result: ok. 14 passed').end('completed'));
    expect(bare.memories.map((m) => m.text).join('\n')).not.toContain('`scarb test`');
  });
});
