import { describe, expect, it } from 'vitest';
import { filesDeleted } from '../../src/memory/phase1/deleted.js';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { TranscriptBuilder } from './phase1/build.js';

function cand(text: string, order: number, kind: Candidate['kind'] = 'procedure'): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 4, at: `2026-05-0${9 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

// Issue 12 kind 1 (heldout-h round 13): a later run moved the test database off a file and deleted it, saying
// so only in its own language; the file's setup stayed in memory. The deletion itself is the signal.
describe('a file a newer run deleted retires the entries that make or use it', () => {
  it('phase 1 lists the workspace files a run deleted and did not make again', () => {
    const b = new TranscriptBuilder('Sposta i test su PostgreSQL.')
      .bash('cd /workspace && rm db/test.sqlite3 && bundle exec rspec | tail -3', 0, '0 examples, 0 failures')
      .bash('rm -rf tmp/cache && rm /tmp/x.log && git rm -q config/legacy.yml', 0, '')
      .bash('rm log/test.log', 0, '')
      .bash('echo > log/test.log', 0, '')
      .bash('rm missing.txt && echo ok', 1, "rm: cannot remove 'missing.txt': No such file or directory");
    expect(filesDeleted(viewRollout(b.end('completed'), 'r'))).toEqual(['db/test.sqlite3', 'config/legacy.yml']);
  });

  it('the rollout summary lists them, marked', async () => {
    const b = new TranscriptBuilder('Drop the legacy config.').bash('git rm -q config/legacy.yml && bundle exec rspec', 0, '12 examples, 0 failures');
    const e = await extractRollout({ records: b.end('completed'), transcriptPath: 'sessions/r.jsonl', mode: 'deterministic' });
    expect(e.summary.filesChanged).toContain('config/legacy.yml (deleted)');
  });

  it('phase 2 retires an older entry naming the file, not a preference, not an unrelated or newer one', () => {
    const setup = cand('`bundle exec rspec` needs `touch db/test.sqlite3 && bin/rails db:schema:load` first.', 1);
    const pref = cand('Never commit `db/test.sqlite3`.', 1, 'preference');
    const other = cand('`bundle exec rspec` needs `bin/rails db:create` first.', 1);
    const similar = cand('Keep `db/test.sqlite3.bak` around for the fixtures.', 1, 'fact');
    const runs = [{ order: 0, passed: [], deleted: ['db/test.sqlite3'] }];
    const r = dropSuperseded([setup, pref, other, similar], runs);
    expect(r.superseded.map((s) => s.stale)).toEqual([setup]);
    expect(dropSuperseded([setup], [{ order: 2, passed: [], deleted: ['db/test.sqlite3'] }]).kept).toEqual([setup]);
  });
});
