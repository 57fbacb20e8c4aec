/**
 * Issue 12, kinds found on the tuned parts in round 25 (each test failed before its rule; the transcripts are
 * written for these tests, with other tools, repositories and languages than the corpus runs). The rules read
 * structure — code spans, what the run ran, what the final message repeats — not a language's words:
 * - a command the user says is retired, that the run never ran and the final message names only to say the run
 *   did without it, is a fact phase 2 reads to retire older entries (`retired.ts`), never the user's rule;
 * - one message naming two checks of one kind, the run passing the one the final message names and never
 *   running the other, is a switch (`switched-check.ts`).
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { staleTerms } from '../../src/memory/phase2/supersede.js';
import { filesMissing } from '../../src/memory/phase1/missing.js';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { filesGone } from '../../src/memory/phase2/task-state.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { prohibitionsNowLifted } from '../../src/memory/phase2/lifted-prohibitions.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { TranscriptBuilder } from './phase1/build.js';

const all = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r'));
const ofKind = (b: TranscriptBuilder, kind: string) => all(b).filter((m) => m.kind === kind).map((m) => m.text);

describe('a command the user retires in a language no list knows', () => {
  it('the task says it is not needed; the run never runs it and the final message says it did without it', () => {
    // Quechua-like invented wording: "the new image has the gems; `bundle-audit` and the apt steps are no longer needed".
    const b = new TranscriptBuilder('Musuq imagenpiqa gemkuna kachkanñam, chayrayku `bundle-audit` hinallataq apt ruraykunapas manañam necesitakunchu. `Invoice#total` allichay.')
      .edit('/workspace/app/models/invoice.rb')
      .bash('cd /workspace && bundle exec rspec spec/models/invoice_spec.rb', 0, '14 examples, 0 failures')
      .say('Fixed `Invoice#total` rounding; the invoice specs pass. The gems were already installed, so no `bundle-audit` step was needed.');
    const facts = ofKind(b, 'fact').filter((t) => t.includes('obsolete'));
    expect(facts).toHaveLength(1);
    expect(facts[0]).toContain('`bundle-audit` is now obsolete');
    expect(staleTerms(facts[0]!).map((t) => t.term)).toContain('bundle-audit');
    expect(ofKind(b, 'preference')).toEqual([]);
  });

  it('mid-run, echoed as "…, not `X`": a retirement, not a rule', () => {
    const b = new TranscriptBuilder('Add a dark theme to the docs site.')
      .edit('/workspace/site/theme.css')
      .user('Kupu: kāore mātou e whakamahi ana i `gulp vendor-assets` ināianei.')
      .bash('cd /workspace && node build/assets.mjs', 0, 'assets: 14 files copied')
      .say('Dark theme added; the assets are copied by build/assets.mjs now, not `gulp vendor-assets`.');
    expect(ofKind(b, 'preference')).toEqual([]);
    const facts = ofKind(b, 'fact').filter((t) => t.includes('obsolete'));
    expect(facts).toHaveLength(1);
    expect(facts[0]).toContain('`gulp vendor-assets`');
  });

  it('not: an API the user forbids (a rule), nor a command the final message says it could not run', () => {
    const api = new TranscriptBuilder('Add a retry loop to the poller.')
      .edit('/workspace/poller/loop.py')
      .user('Kāore he `time.sleep` i roto i ngā kōhao.')
      .bash('cd /workspace && pytest -q tests/test_loop.py', 0, '5 passed')
      .say('Retry loop added with the scheduler; no `time.sleep` in the loop.');
    expect(ofKind(api, 'fact').filter((t) => t.includes('obsolete'))).toEqual([]);
    const couldNot = new TranscriptBuilder('Fix the date parser; `make e2e` must stay green.')
      .edit('/workspace/src/dates.ts')
      .bash('cd /workspace && npx vitest run src/dates.test.ts', 0, 'Tests  8 passed (8)')
      .say('Fixed the parser; unit tests pass. I did not run `make e2e` (it needs Docker).');
    expect(ofKind(couldNot, 'fact').filter((t) => t.includes('obsolete'))).toEqual([]);
  });
});

describe('a switch of checks the run carried out', () => {
  it('two checks in two clauses: the one run and reported replaces the one never run', () => {
    // Aymara-like invented wording: "add `--since`. Careful: not `tox -e unit` by hand any more. The tests go through `just test`."
    const b = new TranscriptBuilder('`--since` yapxataña. Amuyt\'aña: janiw `tox -e unit` amparampi. Yatxatawinakax `just test` tuqiw sarapxi.')
      .edit('/workspace/src/cli.py')
      .bash('cd /workspace && just test 2>&1 | tail -2', 0, '== 41 passed in 3.2s ==')
      .say('Added `--since`; `just test` passes (41 tests).');
    const facts = ofKind(b, 'fact').filter((t) => t.includes('instead of'));
    expect(facts).toHaveLength(1);
    expect(facts[0]).toContain('with `just test` (it passed) instead of `tox -e unit`');
    expect(staleTerms(facts[0]!).map((t) => t.term)).toContain('tox -e unit');
  });

  it('not: both checks in one clause ("make sure both pass")', () => {
    const b = new TranscriptBuilder('Fix the overflow in `Ring::push` and make sure `make check` and `cargo test` pass.')
      .edit('/workspace/src/ring.rs')
      .bash('cd /workspace && cargo test', 0, 'test result: ok. 22 passed')
      .say('Fixed the overflow in `Ring::push`; `cargo test` passes.');
    expect(ofKind(b, 'fact').filter((t) => t.includes('instead of'))).toEqual([]);
  });
});

describe('a PATH prefix the suite needs stays part of the test command', () => {
  it('a directory outside the system ones makes a default command the project\'s', () => {
    const b = new TranscriptBuilder('Add a `/healthz` location to the gateway config.')
      .edit('/workspace/conf/gateway.conf')
      .bash('cd /workspace && PATH=/usr/local/haproxy/sbin:$PATH make test 2>&1 | tail -2', 0, 't/healthz.t .. ok\nAll tests successful.')
      .say('Added `/healthz`; the gateway tests pass.');
    expect(ofKind(b, 'procedure')).toEqual(['Run the tests with `PATH=/usr/local/haproxy/sbin:$PATH make test` (passed in this workspace).']);
  });

  it('not: a PATH that only repeats the system directories', () => {
    const b = new TranscriptBuilder('Add a `/healthz` location to the gateway config.')
      .edit('/workspace/conf/gateway.conf')
      .bash('cd /workspace && PATH=/usr/local/bin:$PATH make test', 0, 'All tests successful.')
      .say('Added `/healthz`; the gateway tests pass.');
    expect(ofKind(b, 'procedure')).toEqual([]);
  });
});

describe('a path a later run did not find', () => {
  const moved = () =>
    new TranscriptBuilder('Regenera los stubs del cliente.')
      .bash('cd /workspace && bash tools/gen_stubs.sh', 127, 'bash: tools/gen_stubs.sh: No such file or directory')
      .bash('cd /workspace && ls scripts', 0, 'codegen.sh')
      .bash('cd /workspace && bash scripts/codegen.sh && cargo check', 0, 'Finished dev profile')
      .say('Regenerated the stubs with `scripts/codegen.sh`.');

  it('phase 1 lists it as missing: named by a command, not found, not made, not passing later', () => {
    expect(filesMissing(viewRollout(moved().end('completed'), 'r'))).toEqual(['tools/gen_stubs.sh']);
    // A path only the tool's output names (a build's own file) is a missing step, not a moved file; one the run then makes is there.
    const step = new TranscriptBuilder('Build the firmware.')
      .bash('cd /workspace && make -C fw', 2, 'make: ../tools/bin/packer: No such file or directory')
      .bash('cd /workspace && cat .env.local', 1, 'cat: .env.local: No such file or directory')
      .bash('cd /workspace && cp .env.example .env.local && cat .env.local', 0, 'PORT=8080');
    expect(filesMissing(viewRollout(step.end('completed'), 'r'))).toEqual([]);
  });

  it('phase 2 retires an older entry naming it', async () => {
    const e = await extractRollout({ records: moved().end('completed'), transcriptPath: 'sessions/r.jsonl', mode: 'deterministic' });
    expect(e.summary.filesChanged).toContain('tools/gen_stubs.sh (missing)');
    const cand = (text: string): Candidate => ({ kind: 'procedure', text, sources: ['r1'], importance: 4, at: '2026-05-08', order: 1, count: 1, ids: new Set([text]), keywords: [] });
    const old = cand('`cargo check` needs `bash tools/gen_stubs.sh` first.');
    const other = cand('Run the tests with `cargo nextest run`.');
    const r = dropSuperseded([old, other], [{ order: 0, passed: [], deleted: filesGone(e.summary.filesChanged) }]);
    expect(r.superseded.map((x) => x.stale)).toEqual([old]);
  });
});

describe('an exit code the final message says is right now', () => {
  const run = (final: string) =>
    new TranscriptBuilder('Ongeza sheria ya `DiskAlmostFull`. Kumbuka: `just check` imerekebishwa.')
      .edit('/workspace/alerts/disk.yml')
      .bash('cd /workspace && just check 2>&1 | tail -3', 1, 'alerts/disk.yml: FAILED: expected 1 alert, got 0\nerror: Recipe `check` failed on line 3 with exit code 1')
      .edit('/workspace/alerts/disk.yml')
      .bash('cd /workspace && just check', 0, 'alerts/disk.yml: SUCCESS')
      .say(final);

  it('a failing run with a non-zero status, and the final message on its exit code: trusted, and it retires the older pitfall', () => {
    const facts = ofKind(run('Added `DiskAlmostFull`; `just check` now exits non-zero when an alert test fails (my first threshold failed it).'), 'fact').filter((t) => t.includes('exits non-zero when tests fail'));
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatch(/^`just check` exits non-zero when tests fail/);
    const cand = (kind: Candidate['kind'], text: string, order: number): Candidate => ({ kind, text, sources: [`r${order}`], importance: 4, at: '2026-05-08', order, count: 1, ids: new Set([text]), keywords: [] });
    const old = cand('pitfall', '`just check` exits 0 even when it fails (it printed “FAILED:” with status 0): read its output.', 1);
    expect(dropSuperseded([old, cand('fact', facts[0]!, 0)], []).superseded.map((x) => x.stale)).toEqual([old]);
  });

  it('not: a failing run the final message says nothing about the exit code of', () => {
    expect(ofKind(run('Added `DiskAlmostFull`; `just check` passes.'), 'fact').filter((t) => t.includes('exits non-zero'))).toEqual([]);
  });
});

describe('a command written out in the closing summary with its output filter', () => {
  const run = (cmd: string, final: string) =>
    new TranscriptBuilder('Corrige le rendu du panneau latéral.')
      .edit('/workspace/src/Sidebar.cs')
      .bash(`cd /workspace && ${cmd} 2>&1 | tail -3`, 0, 'Passed!  - Failed: 0, Passed: 31, Skipped: 0, Total: 31')
      .say(final);

  it('the command without `| tail`, when it is more than the default', () => {
    const got = ofKind(run('xvfb-run -a dotnet test', 'Rendu corrigé. Lancé `xvfb-run -a dotnet test | tail -3` : 31 tests passent.'), 'procedure');
    expect(got).toEqual(["Run the tests with `xvfb-run -a dotnet test` (the agent's closing summary gives it; it passed in this workspace)."]);
  });

  it('not: the ecosystem\'s default alone, nor a command the run never passed', () => {
    expect(ofKind(run('dotnet test', 'Rendu corrigé. Lancé `dotnet test | tail -3` : 31 tests passent.'), 'procedure')).toEqual([]);
    expect(ofKind(run('dotnet test', 'Rendu corrigé. À lancer : `xvfb-run -a dotnet test | tail -3`.'), 'procedure')).toEqual([]);
  });
});

describe('a prohibition the user lifts, that the run then goes against', () => {
  const viewed = '     1\t-- migrations/0001_init.sql\n     2\t-- Never use ON DELETE CASCADE here: rows are archived, not removed.\n     3\tCREATE TABLE orders (';
  const run = (said: string, added: string) =>
    new TranscriptBuilder(said)
      .tool('str_replace_based_edit_tool', { command: 'view', path: '/workspace/migrations/0001_init.sql' }, viewed)
      .tool('str_replace_based_edit_tool', { command: 'create', path: '/workspace/migrations/0007_tags.sql', file_text: added }, 'File created')
      .bash('cd /workspace && make migrate-check', 0, 'ok: 7 migrations')
      .say('Added `0007_tags.sql`.');

  it('the span the user named, forbidden by a comment the run read, written by its edit: "now allowed", retiring the older constraint', () => {
    // Invented wording: "`CASCADE` is fine now for tag tables. Add a tags table."
    const b = run('Ang `CASCADE` pwede na karon sa mga tag table. Idugang ang tags table.', 'CREATE TABLE tags (order_id int REFERENCES orders ON DELETE CASCADE);\n');
    const facts = ofKind(b, 'fact');
    expect(facts.filter((t) => t.startsWith('Constraint'))).toEqual([]);
    const lifted = facts.filter((t) => t.includes('is now allowed here'));
    expect(lifted).toHaveLength(1);
    expect(lifted[0]).toMatch(/^`CASCADE` is now allowed here: .*`migrations\/0007_tags\.sql`/);
    const cand = (kind: Candidate['kind'], text: string, order: number): Candidate => ({ kind, text, sources: [`r${order}`], importance: 4, at: '2026-05-08', order, count: 1, ids: new Set([text]), keywords: [] });
    const old = cand('fact', 'Constraint (comment in migrations/0001_init.sql): “Never use ON DELETE CASCADE here: rows are archived, not removed.”', 1);
    const pref = cand('preference', 'Never use CASCADE in migrations.', 1);
    expect(prohibitionsNowLifted([old, pref, cand('fact', lifted[0]!, 0)]).map((x) => x.stale)).toEqual([old]);
  });

  it('not: an edit that does not write the span, nor a span no comment forbids', () => {
    expect(ofKind(run('Ang `CASCADE` pwede na karon. Idugang ang tags table.', 'CREATE TABLE tags (order_id int REFERENCES orders);\n'), 'fact').filter((t) => t.includes('now allowed'))).toEqual([]);
    expect(ofKind(run('Gamita ang `BIGSERIAL`. Idugang ang tags table.', 'CREATE TABLE tags (id BIGSERIAL);\n'), 'fact').filter((t) => t.includes('now allowed'))).toEqual([]);
  });
});

describe("Automake's test driver names the failed test", () => {
  it('a `FAIL: name` line failing once and passing on an identical rerun is a flaky test', () => {
    const b = new TranscriptBuilder('Rotate the journal files by size.')
      .edit('/workspace/src/rotate.c')
      .bash('cd /workspace && make check 2>&1 | tail -6', 0, 'PASS: t_rotate_size\nFAIL: t_fsnotify (timed out after 3 s)\n# TOTAL: 2\n# PASS:  1\n# FAIL:  1\nmake[2]: *** [Makefile:640: test-suite.log] Error 1')
      .bash('cd /workspace && make check 2>&1 | tail -3', 0, 'PASS: t_fsnotify\n# TOTAL: 2\n# PASS:  2')
      .say('Rotation by size added; `t_fsnotify` failed once and passed on an identical rerun.');
    const flaky = ofKind(b, 'pitfall').filter((t) => t.startsWith('Flaky test'));
    expect(flaky).toHaveLength(1);
    expect(flaky[0]).toContain('`t_fsnotify`');
  });
});
