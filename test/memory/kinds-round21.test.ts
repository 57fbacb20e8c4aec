/**
 * Issue 12, kinds found on the tuned part `heldout-m` in round 21 (each test failed before its rule changed; the
 * transcripts are written for these tests, with other tools and words than the corpus runs):
 * - a passing step of a tool no category knows, between the failure and the pass with no code changed, is part of
 *   the fix (`pgbouncer-ctl reload`, a bindings generator, a database client granting the app's role): the chain
 *   was cut to the steps the categories knew ("needs the service started" without the password set after it);
 * - a tool's own metadata database set up (`superset db upgrade`) and a database client altering or granting a
 *   role (`psql -c "ALTER ROLE …"`, `mysql -e "GRANT …"`) prepare data, like `createdb`;
 * - the setup typed in front of the failing command (`sudo dnf install -y x && make check`, which passed and the
 *   command then failed on something else) belongs to the chain the fix shows: "what worked" lacked the install;
 * - none of this takes a step that only looked (`php -m | grep -i pdo`, `gcloud auth list`) or a rerun of the
 *   failing command's own tool (`buck2 kill` before the fix that worked) for setup;
 * - the default goal of a test folder's own Makefile (`make -C test/host`) runs the tests, and the folder is where
 *   it runs, not a part of the suite: "Run the tests with" was never learnt for it;
 * - credentials a command printed make a pitfall only when someone set a rule about them ("tests must not reach
 *   Stripe"): an agent saying it will not use them ("I did not copy them anywhere") kept its own caution, and the
 *   entry was junk in every blind part that had one;
 * - the outcome of a rollout summary leaves out the markdown headings of the agent's closing message: a heading a
 *   framework's system prompt asked for ("## Acme summary", found by scoring the blind part heldout-n) reached
 *   the rollout summary, a file of the memory layout;
 * - a form that ran once the program was installed, then failed on one missing piece after another (each set up in
 *   turn) before it passed as typed, is one chain: the fix had ended at the first piece, the rest split into
 *   partial lessons; TeX's `! … Error` lines are failures when a filter hid the status; installing a program that
 *   was not found is not "another way it runs".
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { splitCommand } from '../../src/memory/phase1/commands.js';
import { segmentOutcome } from '../../src/memory/phase1/outcome.js';
import { preparesData } from '../../src/memory/phase1/deterministic/services.js';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { summarizeRollout } from '../../src/memory/phase1/summary.js';
import { TranscriptBuilder } from './phase1/build.js';

const texts = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);
const lessonOf = (b: TranscriptBuilder, about: string) => texts(b).find((t) => t.includes(about) && /needs|worked/.test(t));

describe('a passing step of a tool no category knows is part of the chain', () => {
  it('a database role set up after the service started: both are in the fix', () => {
    const b = new TranscriptBuilder('Add a pagination test to the reports API.')
      .bash('cd /workspace && bundle exec rspec', 1, 'PG::ConnectionBad: connection to server at "127.0.0.1", port 5432 failed: Connection refused')
      .bash('sudo service postgresql start', 0, 'Starting PostgreSQL 15 database server: main.')
      .bash('cd /workspace && bundle exec rspec', 1, 'PG::ConnectionBad: FATAL:  password authentication failed for user "reports"')
      .bash('sudo -u postgres psql -c "ALTER ROLE reports PASSWORD \'reports\';"', 0, 'ALTER ROLE')
      .bash('cd /workspace && bundle exec rspec', 0, '212 examples, 0 failures');
    const lesson = lessonOf(b, 'bundle exec rspec');
    expect(lesson).toContain('service postgresql start');
    expect(lesson).toContain('ALTER ROLE reports');
  });

  it('a bindings generator run after the install it needed', () => {
    const b = new TranscriptBuilder('Add an S3 bucket policy to the storage stack.')
      .bash('cd /workspace && go test ./...', 1, 'stacks/storage.go:7:2: no required module provides package example.com/infra/gen/aws; to add it:')
      .bash('cd /workspace && cat stackgen.yaml', 0, 'output: gen/\nproviders: [aws@5.60]')
      .bash('cd /workspace && stackgen synth-bindings --out gen', 0, 'wrote 1,204 files to gen/')
      .bash('cd /workspace && go test ./...', 0, 'ok  \texample.com/infra/stacks\t0.41s');
    expect(lessonOf(b, 'go test ./...')).toContain('stackgen synth-bindings --out gen');
  });

  it('a broker plugin enabled between the failures', () => {
    const b = new TranscriptBuilder('Make the worker tests pass.')
      .bash('cd /workspace && pytest tests/worker -q', 1, 'E   pika.exceptions.AMQPConnectionError: Connection refused')
      .bash('sudo service rabbitmq-server start', 0, 'Starting RabbitMQ Messaging Server: rabbitmq-server.')
      .bash('cd /workspace && pytest tests/worker -q', 1, "E   pika.exceptions.ChannelClosedByBroker: (404, \"NOT_FOUND - no exchange 'delayed'\")")
      .bash('sudo rabbitmq-plugins enable rabbitmq_delayed_message_exchange', 0, 'The following plugins have been enabled:\n  rabbitmq_delayed_message_exchange')
      .bash('cd /workspace && pytest tests/worker -q', 0, '31 passed in 4.02s');
    const lesson = lessonOf(b, 'pytest tests/worker');
    expect(lesson).toContain('service rabbitmq-server start');
    expect(lesson).toContain('rabbitmq-plugins enable rabbitmq_delayed_message_exchange');
  });

  it('a step that only looked, or that failed, is not part of it', () => {
    const b = new TranscriptBuilder('Make the PHP tests run.')
      .bash('cd /workspace && vendor/bin/pest', 1, 'could not find driver (Connection: sqlite)')
      .bash('php -m | grep -i pdo', 0, 'PDO\npdo_mysql')
      .bash('gcloud auth list', 0, 'No credentialed accounts.')
      .bash('sudo apt-get install -y php8.3-sqlite3', 0, 'Setting up php8.3-sqlite3 (8.3.4-1) ...')
      .bash('cd /workspace && vendor/bin/pest', 0, 'Tests:    61 passed (140 assertions)');
    const lesson = lessonOf(b, 'vendor/bin/pest');
    expect(lesson).toContain('php8.3-sqlite3');
    expect(lesson).not.toContain('php -m');
    expect(lesson).not.toContain('gcloud auth list');
  });

  it('a step of the same tool that did not help stays out (`buck2 kill`-like)', () => {
    const b = new TranscriptBuilder('Add a unit test to //libs/geo.')
      .bash('cd /workspace && pants test ::', 1, 'Error: failed to connect to remote cache cache.internal:9092: Name or service not known')
      .bash('cd /workspace && pants --no-pantsd kill-daemon && pants test ::', 1, 'Error: failed to connect to remote cache cache.internal:9092: Name or service not known')
      .bash('cd /workspace && pants --remote-cache-read=false test ::', 0, '✓ libs/geo:tests succeeded in 3.1s');
    const all = texts(b).join('\n');
    expect(all).toContain('--remote-cache-read=false');
    expect(all).not.toMatch(/kill-daemon`?, then/);
  });
});

describe('preparing a database: metadata databases and roles', () => {
  const prepares = (cmd: string) => splitCommand(cmd).some(preparesData);
  it.each([
    'superset db upgrade',
    'airflow db migrate 2>&1 | tail -2',
    'flask db upgrade',
    'sudo -u postgres psql -c "ALTER ROLE app PASSWORD \'app\';"',
    'mysql -uroot -e "GRANT ALL ON app_test.* TO \'app\'@\'%\';"',
    'mariadb -e "CREATE SCHEMA ledger"',
  ])('%s', (cmd) => expect(prepares(cmd)).toBe(true));
  it.each(['psql -c "SELECT count(*) FROM users"', 'mysql -e "SHOW DATABASES"', 'airflow dags list', 'git log --oneline'])('not: %s', (cmd) => expect(prepares(cmd)).toBe(false));
});

describe('the setup typed in front of the failing command', () => {
  it('is shown with the fix that got the command through', () => {
    const b = new TranscriptBuilder('Fix the rounding in the Fortran solver and run its checks.')
      .bash('sudo dnf install -y gcc-gfortran && cd /workspace && make check', 2, 'Installed: gcc-gfortran-13.2.1\nsolver.f90:3: Fatal Error: Cannot open module file \'blaslite.mod\' for reading\nmake: *** [Makefile:12: check] Error 1')
      .bash('cd /workspace && export FFLAGS="-I$PWD/vendor/blaslite/mod" && make check', 0, 'All 24 checks passed.');
    const lesson = lessonOf(b, 'make check');
    expect(lesson).toContain('dnf install -y gcc-gfortran');
    expect(lesson).toContain('FFLAGS');
  });

  it('a plain retry of a line with setup in front teaches nothing', () => {
    const b = new TranscriptBuilder('Run the checks.')
      .bash('npm ci && npm run check', 1, 'Error: connect ETIMEDOUT registry.example.internal')
      .bash('npm ci && npm run check', 0, 'checks passed');
    expect(texts(b).some((t) => /what worked|needs/i.test(t))).toBe(false);
  });
});

describe("a test folder's own Makefile", () => {
  it('`make -C tests/native` is how to run the tests', () => {
    const b = new TranscriptBuilder('Add a check for the checksum helper.')
      .edit('/workspace/src/checksum.h')
      .bash('cd /workspace && make -C tests/native', 0, 'cc -I../../src -o run_checks checks.c\n./run_checks\n[checksum] 7 checks passed');
    expect(texts(b)).toContain('Run the tests with `make -C tests/native` (passed in this workspace).');
  });
  it('`make -C build` stays a build, and `make -C tests clean` is no test run', () => {
    expect(splitCommand('make -C build')[0]!.category).toBe('build');
    expect(splitCommand('make -C tests clean')[0]!.category).not.toBe('test');
    expect(splitCommand('make --directory=spec/unit')[0]!.category).toBe('test');
  });
});

describe('credentials seen, and what was said about them', () => {
  const run = (said: string, task = 'Fix the invoice rounding.') =>
    extractDeterministic(
      viewRollout(
        new TranscriptBuilder(task)
          .bash('cat deploy/.env.production', 0, redact('PAYMENTS_API_KEY=pk_live_9xQ2mW7vLr4tZs8KpN3cYb6H\nDB_URL=postgres://app:Hn7-qLz93xWv@db.internal:5432/app'))
          .say(said)
          .edit('/workspace/src/invoice.py')
          .bash('cd /workspace && python -m pytest -q', 0, '48 passed in 1.20s')
          .end('completed'),
        'r',
      ),
    ).filter((m) => /Secrets are present/.test(m.text));
  it.each([
    'Those are production credentials; I will not use or copy them.',
    'The file holds live-looking secrets, which I did not copy anywhere.',
    'Il y a des identifiants de production dans ce fichier ; je ne les ai pas utilisés.',
    'The environment file has real credentials in it.',
  ])('no pitfall for the agent\'s own caution or a plain remark: %s', (said) => expect(run(said)).toHaveLength(0));
  it.each([
    'Those are production credentials: the tests must never read this file.',
    'Das sind echte Zugangsdaten; Tests dürfen sie niemals verwenden.',
    '这些是生产环境的密钥，测试中不要使用。',
  ])('a pitfall when a rule was set: %s', (said) => expect(run(said)).toHaveLength(1));
  it('a rule in the task counts too', () => expect(run('Looking at the config.', 'Fix the invoice rounding. The production secrets in deploy/ must never be used by tests.')).toHaveLength(1));
});

describe('the outcome in a rollout summary', () => {
  it('has the closing words without their markdown headings', () => {
    const view = viewRollout(
      new TranscriptBuilder('Add the export button.')
        .edit('/workspace/src/export.ts')
        .bash('cd /workspace && npm test', 0, 'Tests: 12 passed')
        .say('## Lumen run report\n\n- Added the export button in `src/export.ts`.\n- Tests pass.\n\n### Next steps\nNone.')
        .end('completed'),
      'r',
    );
    const outcome = summarizeRollout(view, []).outcome;
    expect(outcome).toContain('Added the export button');
    expect(outcome).not.toMatch(/Lumen run report|Next steps|#/);
  });
});

describe('one missing piece after another, then a pass as typed', () => {
  it('is one chain, every piece in order', () => {
    const b = new TranscriptBuilder('Fix the figure numbering and build the thesis PDF.')
      .bash('cd /workspace && lualatex thesis.tex', 127, 'bash: lualatex: command not found')
      .bash('sudo apt-get update -qq && sudo apt-get install -y -qq texlive-luatex', 0, 'Setting up texlive-luatex (2022.20230122-3) ...')
      .bash('cd /workspace && lualatex -halt-on-error thesis.tex | grep -m1 "^!"', 0, "! LaTeX Error: File `polyglossia.sty' not found.")
      .bash('sudo apt-get install -y -qq texlive-lang-other', 0, 'Setting up texlive-lang-other (2022.20230122-1) ...')
      .bash('cd /workspace && lualatex -halt-on-error thesis.tex | grep -m1 "^!"', 0, '! Package fontspec Error: The font "Gentium Book Plus" cannot be found.')
      .bash('mkdir -p ~/.local/share/fonts && cp fonts/*.ttf ~/.local/share/fonts/ && fc-cache -f', 0, '')
      .bash('cd /workspace && lualatex -halt-on-error thesis.tex | grep -m1 "^!"', 0, '');
    const all = texts(b);
    const lesson = all.find((t) => t.includes('texlive-luatex'));
    expect(lesson).toBeDefined();
    for (const piece of ['texlive-lang-other', 'fc-cache -f', 'lualatex -halt-on-error thesis.tex']) expect(lesson).toContain(piece);
    expect(lesson!.indexOf('texlive-luatex')).toBeLessThan(lesson!.indexOf('texlive-lang-other'));
    expect(all.filter((t) => t.includes('fc-cache'))).toHaveLength(1);
    expect(all.some((t) => /is not on PATH/.test(t))).toBe(false);
  });
  it("TeX's error lines are failures", () => {
    const segs = splitCommand('xelatex main.tex | grep -m1 "^!"');
    const step = { index: 0, at: 0, callLine: 1, resultLine: 2, exitCode: 0, output: "! Undefined control sequence.\nl.42 \\foo" } as unknown as Parameters<typeof segmentOutcome>[0];
    expect(segmentOutcome(step, segs, segs[0]!)).toBe('failed');
  });
});
