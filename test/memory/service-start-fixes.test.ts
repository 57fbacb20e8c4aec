import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (b: TranscriptBuilder) => extractRollout({ records: b.end(), transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

const PYTEST_REFUSED =
  'FAILED tests/test_orders.py::test_create_order - psycopg.OperationalError: connection failed: Connection refused\n' +
  '\tIs the server running on host "localhost" (127.0.0.1) and accepting TCP/IP connections on port 5432?\n' +
  '1 failed, 41 passed in 2.31s';

describe('issue 12 trial: a missing service is a fix chain, not a flaky test', () => {
  const starts = [
    'docker compose up -d postgres',
    'docker-compose up -d db',
    'sudo service postgresql start',
    'systemctl start redis',
    'pg_ctl -D /var/lib/postgresql/data -l /tmp/pg.log start',
    'redis-server --daemonize yes',
    'brew services start postgresql@16',
  ];
  for (const start of starts) {
    it(`\`${start}\` between the failure and the pass is the fix`, async () => {
      const e = await extract(
        new TranscriptBuilder('Add the order total endpoint.')
          .bash('pytest -q', 1, PYTEST_REFUSED)
          .bash(start, 0, '')
          .bash('pytest -q', 0, '42 passed in 2.05s'),
      );
      expect(e.memories.map((m) => m.text).join('\n')).not.toMatch(/flaky/i);
      const fix = e.memories.find((m) => m.text.includes(`\`${start}\``));
      expect(fix?.text).toMatch(new RegExp(`^\`pytest -q\` needs \`${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` first`));
      expect(fix?.text).toContain('Connection refused');
    });
  }

  it('any command between the runs that is not read-only makes the rerun not identical: not flaky', async () => {
    const e = await extract(
      new TranscriptBuilder('Add the order total endpoint.')
        .bash('pytest -q', 1, PYTEST_REFUSED)
        .bash('./scripts/dev-db.sh', 0, 'database ready')
        .bash('pytest -q', 0, '42 passed in 2.05s'),
    );
    expect(e.memories.map((m) => m.text).join('\n')).not.toMatch(/flaky/i);
  });

  it('with only looking in between (or nothing), the identical rerun is still flaky', async () => {
    for (const between of [[], ['ls tests', 'git status', 'cat tests/test_orders.py | head -40']]) {
      let b = new TranscriptBuilder('Add the order total endpoint.').bash('pytest -q', 1, PYTEST_REFUSED);
      for (const c of between) b = b.bash(c, 0, 'x');
      const e = await extract(b.bash('pytest -q', 0, '42 passed in 2.05s'));
      expect(e.memories.map((m) => m.text).join('\n'), between.join('; ')).toMatch(/Flaky test: `tests\/test_orders.py::test_create_order`/);
    }
  });
});
