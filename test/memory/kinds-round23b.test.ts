/**
 * Issue 12, kinds found on heldout-o in round 23b (each test failed before its rule changed; the transcripts are
 * written for these tests, with other tools and words than the corpus runs):
 * - a closing paragraph that says what a fresh sandbox (clone, container …) needs first is advice for the next
 *   run, kept as a note even without a "Notes:" heading, and so is one that says which of two commands to use
 *   ("Run `a`, not `b`: …");
 * - Expecto (F#) reports a failed test as `[hh:mm:ss ERR] list.test failed in …`: a failure that passes on an
 *   identical rerun is a flaky test;
 * - a toolchain the run reached only behind `export PATH=<dir>:$PATH` (no failure showed it) is how it runs here.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { failedTestNames } from '../../src/memory/phase1/deterministic/flaky.js';
import { statesLastingRule } from '../../src/memory/phase1/deterministic/durable.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import type { MemoryKind } from '../../src/memory/types.js';

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

  it('"Check with `x` (…), not `y`: …" after the report paragraph', () => {
    const b = new TranscriptBuilder('Add a `timeoutMs` field to the job schema.')
      .edit('/workspace/schema/job.json')
      .bash('cd /workspace && npm run validate:configs', 0, 'validated 14 files')
      .say('Added `timeoutMs` (integer, 1..600000) to the job schema; all configs validate.\n\nCheck with `npm run validate:configs` (it runs ajv over `configs/**/*.yaml`), not `npx ajv compile`: the latter only compiles the schema and never reads a config file.');
    expect(notes(b)).toHaveLength(1);
    expect(notes(b)[0]).toContain('npm run validate:configs');
  });

  it('not: a closing paragraph that reports what the run did', () => {
    const b = new TranscriptBuilder('Add a `last_seen` column to the users table with a migration.')
      .edit('/workspace/migrations/0042_last_seen.sql', 'create')
      .bash('cd /workspace && ./bin/migrate up', 0, 'applied 0042_last_seen')
      .say('Added migration 0042 with the `last_seen` column.\n\nI ran `./bin/migrate up` and it applied cleanly.');
    expect(notes(b)).toEqual([]);
  });
});

describe('Expecto failures are read as failed tests', () => {
  it('names the failed test of an Expecto report', () => {
    const out = '[09:13:02 ERR] parser.handles empty input failed in 00:00:00.0120000.\nExpected [] but was [""]\n[09:13:02 INF] EXPECTO! 12 tests run in 00:00:00.41 for all – 11 passed, 0 ignored, 1 failed, 0 errored.';
    expect(failedTestNames(out)).toEqual(['parser.handles empty input']);
  });

  it('a failure that passes on an identical rerun is flaky', () => {
    const b = new TranscriptBuilder('Add a `trimEnd` option to the CSV writer.')
      .edit('/workspace/src/Csv/Writer.fs')
      .bash('cd /workspace && dotnet test tests/Csv.Tests', 1, '[09:13:02 ERR] timing.flush within budget failed in 00:00:00.2310000.\nExpected elapsed < 200ms but was 231ms\n[09:13:02 INF] EXPECTO! 40 tests run in 00:00:01.2 for all – 39 passed, 0 ignored, 1 failed, 0 errored.')
      .bash('cd /workspace && dotnet test tests/Csv.Tests', 0, '[09:13:20 INF] EXPECTO! 40 tests run in 00:00:01.1 for all – 40 passed, 0 ignored, 0 failed, 0 errored. Success!');
    const flaky = texts(b).filter((t) => t.startsWith('Flaky test'));
    expect(flaky).toHaveLength(1);
    expect(flaky[0]).toContain('timing.flush within budget');
  });
});

describe('a toolchain run only behind a PATH prefix', () => {
  const onPath = (b: TranscriptBuilder) => texts(b).filter((t) => t.includes('is not on PATH here'));

  it('every `gleam` command typed after `export PATH=/opt/gleam/bin:$PATH`', () => {
    const b = new TranscriptBuilder('Přidej funkci `slugify` do modulu text.')
      .bash('export PATH=/opt/gleam/bin:$PATH && gleam test', 0, '12 tests, 0 failures')
      .edit('/workspace/src/text.gleam')
      .bash('export PATH=/opt/gleam/bin:$PATH && gleam format src test && gleam test', 0, '13 tests, 0 failures');
    expect(onPath(b)).toHaveLength(1);
    expect(onPath(b)[0]).toContain('export PATH=/opt/gleam/bin:$PATH');
  });

  it('not: the program also ran without the prefix', () => {
    const b = new TranscriptBuilder('Add a `slugify` function to the text module.')
      .bash('gleam test', 0, '12 tests, 0 failures')
      .edit('/workspace/src/text.gleam')
      .bash('export PATH=/opt/gleam/bin:$PATH && gleam test', 0, '13 tests, 0 failures')
      .bash('export PATH=/opt/gleam/bin:$PATH && gleam test', 0, '13 tests, 0 failures');
    expect(onPath(b)).toEqual([]);
  });

  it('not: a directory of the workspace (`./node_modules/.bin`)', () => {
    const b = new TranscriptBuilder('Add a `slugify` helper.')
      .bash('export PATH=/workspace/node_modules/.bin:$PATH && vitest run', 0, '4 passed')
      .edit('/workspace/src/text.ts')
      .bash('export PATH=/workspace/node_modules/.bin:$PATH && vitest run', 0, '5 passed');
    expect(onPath(b)).toEqual([]);
  });
});

describe('Greek "from here on" states a lasting rule', () => {
  it('"Από εδώ και πέρα: …" and "από δω και μπρος …"', () => {
    expect(statesLastingRule('Από εδώ και πέρα: τα μηνύματα των commit γράφονται στα αγγλικά.')).toBe(true);
    expect(statesLastingRule('Και από δω και μπρος τρέχε το `cargo clippy` πριν από κάθε commit.')).toBe(true);
  });

  it('a mid-run message with it becomes a preference, its one-off sentence left out', () => {
    const b = new TranscriptBuilder('Πρόσθεσε τη συνάρτηση `parse_date` στο `src/dates.c`.')
      .edit('/workspace/src/dates.c')
      .bash('cd /workspace && make check', 0, 'PASS: 9')
      .user('Ωραία. Από εδώ και πέρα: κάθε νέα συνάρτηση παίρνει δοκιμή στο `tests/`. Αυτή τη φορά μην αλλάξεις το ChangeLog.');
    const prefs = texts(b).filter((t) => t.startsWith('The user said mid-run'));
    expect(prefs).toHaveLength(1);
    expect(prefs[0]).toContain('tests/');
    expect(prefs[0]).not.toContain('ChangeLog');
  });
});

describe('a lasting rule beside a change in the same clause', () => {
  const prefs = (b: TranscriptBuilder) => texts(b).filter((t) => t.startsWith('The user said mid-run'));
  const changes = (b: TranscriptBuilder) => texts(b).filter((t) => t.includes('repository changed'));

  it('Portuguese: "daqui para frente lint com `x`, o `y` não existe mais"', () => {
    const b = new TranscriptBuilder('Corrija o aviso de variável não usada em `src/app.py`.')
      .edit('/workspace/src/app.py')
      .user('Daqui para frente o lint é com `ruff check .`, o flake8 não existe mais aqui.')
      .bash('cd /workspace && ruff check .', 0, 'All checks passed!');
    expect(prefs(b)).toHaveLength(1);
    expect(prefs(b)[0]).toContain('ruff check .');
    expect(prefs(b)[0]).not.toContain('flake8');
    expect(changes(b)).toHaveLength(1);
  });

  it('not: a clause that only states the change', () => {
    const b = new TranscriptBuilder('Fix the unused-variable warning in `src/app.py`.')
      .edit('/workspace/src/app.py')
      .user('FYI, we switched from flake8 to `ruff`, flake8 is no longer used.')
      .bash('cd /workspace && ruff check .', 0, 'All checks passed!');
    expect(prefs(b)).toEqual([]);
  });
});

describe('pg_prove over a whole folder runs the tests', () => {
  const runs = (b: TranscriptBuilder) => texts(b).filter((t) => t.startsWith('Run the tests with'));

  it('`pg_prove -d shop_dev t/*.sql` passing', () => {
    const b = new TranscriptBuilder('Add a CHECK constraint that order totals are not negative.')
      .edit('/workspace/deploy/orders_total_check.sql', 'create')
      .bash('cd /workspace && pg_prove -d shop_dev t/*.sql', 0, 't/orders.sql .. ok\nt/users.sql ... ok\nAll tests successful.\nResult: PASS');
    expect(runs(b)).toEqual(['Run the tests with `pg_prove -d shop_dev t/*.sql` (passed in this workspace).']);
  });

  it('not: one file of the suite (`t/orders.sql`)', () => {
    const b = new TranscriptBuilder('Add a CHECK constraint that order totals are not negative.')
      .edit('/workspace/deploy/orders_total_check.sql', 'create')
      .bash('cd /workspace && pg_prove -d shop_dev t/orders.sql', 0, 't/orders.sql .. ok\nAll tests successful.\nResult: PASS');
    expect(runs(b)).toEqual([]);
  });
});

describe('"we no longer use X" in Hindi and Urdu states a change', () => {
  const changes = (b: TranscriptBuilder) => texts(b).filter((t) => t.includes('repository changed'));
  const prefs = (b: TranscriptBuilder) => texts(b).filter((t) => t.startsWith('The user said mid-run'));

  it('Hindi: "अब हम pipenv इस्तेमाल नहीं करते — `uv run pytest` चलाओ"', () => {
    const b = new TranscriptBuilder('`slugify` में यूनिकोड सपोर्ट जोड़ो।')
      .edit('/workspace/src/text.py')
      .user('अब हम pipenv इस्तेमाल नहीं करते — `uv sync` काफ़ी है। बस `uv run pytest` चलाओ।')
      .bash('cd /workspace && uv run pytest -q', 0, '21 passed in 0.8s')
      .say('यूनिकोड सपोर्ट जोड़ दिया; `uv run pytest` पास है।');
    expect(changes(b)).toHaveLength(1);
    expect(changes(b)[0]).toContain('pipenv');
    expect(prefs(b)).toEqual([]);
  });

  it('Urdu: "اب ہم yarn استعمال نہیں کرتے"', () => {
    const b = new TranscriptBuilder('Fix the date format in the footer.')
      .edit('/workspace/src/footer.ts')
      .user('اب ہم yarn استعمال نہیں کرتے، `pnpm install` کریں۔');
    expect(changes(b)).toHaveLength(1);
  });
});

describe('an unfinished run failing on its own work retires no passing command', () => {
  // `order` 0 is the newest run.
  const cand = (text: string, order: number, kind: MemoryKind): Candidate => ({ kind, text, sources: [`r${order}`], importance: 3, at: `2026-01-0${5 - order}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] });
  const stale = (cs: Candidate[]) => dropSuperseded(cs).superseded.map((s) => s.stale.text);
  const passed = 'Run the tests with `bats tests/*.bats` (passed in this workspace).';

  it('not retired by the unfinished entry naming it as failed', () => {
    const unfinished = 'Unfinished (turn limit): add the `--dry-run` flag. Unresolved: `bats tests/*.bats` failed: “not ok 7 dry run prints the plan”.';
    expect(stale([cand(unfinished, 0, 'task_state'), cand(passed, 1, 'procedure')])).toEqual([]);
  });

  it('still retired by a finished run saying it failed', () => {
    expect(stale([cand('`bats tests/*.bats` failed: bats is not installed in this image any more; use `make test`.', 0, 'pitfall'), cand(passed, 1, 'procedure')])).toEqual([passed]);
  });
});
