/**
 * Issue 12, kinds found on heldout-o in round 23b (each test failed before its rule changed; the transcripts are
 * written for these tests, with other tools and words than the corpus runs):
 * - a closing paragraph that says what a fresh sandbox (clone, container …) needs first is advice for the next
 *   run, kept as a note even without a "Notes:" heading.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

const texts = (b: TranscriptBuilder): string[] => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);

describe('a closing paragraph about what a fresh sandbox needs is a note', () => {
  const notes = (b: TranscriptBuilder) => texts(b).filter((t) => t.startsWith('Noted by the agent'));

  it('"In a fresh container, …: `x`, then `y`" after the report paragraph', () => {
    const b = new TranscriptBuilder('Add a `last_seen` column to the users table with a migration.')
      .bash('cd /workspace && redis-cli ping', 1, 'Could not connect to Redis at 127.0.0.1:6379: Connection refused')
      .bash('cd /workspace && sudo service redis-server start && ./bin/migrate up', 0, 'applied 0042_last_seen')
      .edit('/workspace/migrations/0042_last_seen.sql', 'create')
      .say('Added migration 0042 with the `last_seen` column; `./bin/migrate up` applies it.\n\nIn a fresh container, Redis is not running and the queue schema is missing: `sudo service redis-server start`, then `./bin/queue-schema load`, then `./bin/migrate up`.');
    expect(notes(b)).toHaveLength(1);
    expect(notes(b)[0]).toContain('./bin/queue-schema load');
  });

  it('not: a closing paragraph that reports what the run did', () => {
    const b = new TranscriptBuilder('Add a `last_seen` column to the users table with a migration.')
      .edit('/workspace/migrations/0042_last_seen.sql', 'create')
      .bash('cd /workspace && ./bin/migrate up', 0, 'applied 0042_last_seen')
      .say('Added migration 0042 with the `last_seen` column.\n\nI ran `./bin/migrate up` and it applied cleanly.');
    expect(notes(b)).toEqual([]);
  });
});
