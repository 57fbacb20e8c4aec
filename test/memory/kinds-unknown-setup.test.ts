import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

// Issue 12 item 2: the fix is the whole chain, also when its setup step is a tool no category knows: a step
// joined by `&&` in front of the command that then passed ran and passed first, so the command needed it.
describe('a setup step of an unknown tool in front of the command that passed is part of the fix', () => {
  it('Go: a variable-prefixed seed step after a bare one that did not help', async () => {
    const b = new TranscriptBuilder('Lägg till ett test för inloggningen.')
      .bash('go test ./auth/...', 1, '--- FAIL: TestLogin (0.01s)\n    realm "dev" not found')
      .bash('kcseed apply && go test ./auth/...', 1, 'seeded ~/.kc/realm.db\n--- FAIL: TestLogin (0.01s)\n    realm "dev" not found')
      .bash('KC_HOME=$PWD/.kc kcseed apply && go test ./auth/...', 0, 'seeded /workspace/.kc/realm.db\nok  \tgithub.com/x/auth\t0.21s');
    const fix = (await extract(b.end())).memories.find((m) => m.text.includes('go test ./auth/...'));
    expect(fix?.text).toContain('`KC_HOME=$PWD/.kc kcseed apply`');
    expect(fix!.kind).toBe('procedure');
  });

  it('Rust: a database reset by an unknown tool before the tests', async () => {
    const b = new TranscriptBuilder('Rätta saldoberäkningen.')
      .bash('cargo test -p ledger', 101, 'thread \'balance\' panicked at \'relation "accounts" does not exist\'')
      .bash('ledgerctl reset --yes && cargo test -p ledger', 0, 'test result: ok. 12 passed; 0 failed');
    const fix = (await extract(b.end())).memories.find((m) => m.text.includes('cargo test -p ledger'));
    expect(fix?.text).toContain('`ledgerctl reset --yes`');
  });

  it('a formatter in front of the check changed the code: it is no setup of the check', async () => {
    const b = new TranscriptBuilder('Ryd op i modulet.')
      .bash('flake8 src', 1, 'src/app.py:3:80: E501 line too long')
      .bash('black src && flake8 src', 0, 'ok');
    const ms = (await extract(b.end())).memories;
    expect(ms.filter((m) => m.text.includes('needs `black src` first'))).toEqual([]);
  });
});
