/**
 * Issue 12, kinds found on the tuned part `heldout-n` in round 22 (each test failed before its rule changed; the
 * transcripts are written for these tests, with other tools and words than the corpus runs):
 * - a test command whose output reports several suites, one of them empty ("running 0 tests" for the doc tests
 *   beside "running 9 tests"), ran tests: it is no "runs no tests" pitfall when a narrower command ran later;
 * - a sentence in quotes that the user asks to be written (a changelog entry, a commit message, a release note)
 *   says what the text will say, not that the repository changed: "… is no longer used …" inside it is no fact;
 * - an edit put back with git (`git checkout -- PATH`, `git restore PATH`, `git reset --hard`) left the file
 *   unchanged: a stopped run's note listed it as changed, and its root cause, naming that file, was dropped;
 * - a completed run that switched libraries (a manifest line or `cargo add` brought one in, an edit or `npm
 *   uninstall` took one out) and says so in its closing message in any wording ("Replaced X with Y", "Switched the
 *   client to Y; X is gone") changed the repository: a fact, though no "from X to Y" was said.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { revertedPaths } from '../../src/memory/phase1/reverted.js';
import { TranscriptBuilder } from './phase1/build.js';

const texts = (b: TranscriptBuilder): string[] => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);

describe('a report of several suites, one of them empty, ran tests', () => {
  it('a Rust workspace whose doc tests are empty, then one test target', () => {
    const b = new TranscriptBuilder('Add a test for the grid snapping.')
      .bash('cd /workspace && cargo test --all', 0, 'running 12 tests\ntest result: ok. 12 passed; 0 failed\nrunning 3 tests\ntest result: ok. 3 passed; 0 failed\n   Doc-tests snapgrid\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed')
      .edit('/workspace/tests/snap.rs', 'create')
      .bash('cd /workspace && cargo test --test snap', 0, 'running 2 tests\ntest result: ok. 2 passed; 0 failed');
    expect(texts(b).filter((t) => t.includes('runs no tests'))).toEqual([]);
  });

  it('a make target running two unittest suites, the second empty', () => {
    const b = new TranscriptBuilder('Fix the date parsing in the importer.')
      .bash('cd /workspace && make check', 0, 'python -m unittest discover -s importer\n..............\nRan 14 tests in 0.210s\n\nOK\npython -m unittest discover -s contrib\n\nRan 0 tests in 0.000s\n\nOK')
      .bash('cd /workspace && python -m unittest importer.tests.test_dates', 0, '....\nRan 4 tests in 0.020s\n\nOK');
    expect(texts(b).filter((t) => t.includes('runs no tests'))).toEqual([]);
  });

  it('a command that ran nothing at all is still the pitfall', () => {
    const b = new TranscriptBuilder('Fix the date parsing in the importer.')
      .bash('cd /workspace && python -m unittest', 0, '\nRan 0 tests in 0.000s\n\nOK')
      .bash('cd /workspace && python -m pytest importer', 0, '18 passed in 0.31s');
    expect(texts(b).filter((t) => t.includes('runs no tests'))).toHaveLength(1);
  });
});

describe('a quoted sentence the user asks to be written is no statement that the repository changed', () => {
  const changed = (b: TranscriptBuilder) => texts(b).filter((t) => t.includes('repository changed'));
  it('a changelog entry in double quotes', () => {
    const b = new TranscriptBuilder('Cut release 2.4.0 of the gem: bump lib/tidewater/version.rb and add the CHANGELOG line "The `strict` option is no longer needed for UTF-16 input." Do not run the specs, CI does.')
      .edit('/workspace/lib/tidewater/version.rb')
      .edit('/workspace/CHANGELOG.md');
    expect(changed(b)).toEqual([]);
  });

  it('a commit message in guillemets', () => {
    const b = new TranscriptBuilder('Corrige la faute dans docs/index.md et fais un commit avec le message « docs: le cache ne dépend plus de memcached, on est passé de memcached à redis ».')
      .edit('/workspace/docs/index.md')
      .bash('cd /workspace && git commit -am "docs: typo"', 0, '[main 1a2b3c4] docs: typo');
    expect(changed(b)).toEqual([]);
  });

  it('a change said outside quotes, with tool names quoted, is still one', () => {
    const b = new TranscriptBuilder('We migrated from "yarn" to "pnpm" last week. Run `pnpm test` instead of `yarn test` and fix the failing date test.')
      .bash('cd /workspace && pnpm test', 0, 'Tests  41 passed (41)');
    expect(changed(b)).toHaveLength(1);
  });
});

describe('an edit put back with git is no change', () => {
  const files = (b: TranscriptBuilder) => viewRollout(b.end('interrupted'), 'r').filesChanged;
  it('`git restore` after a Rust edit, the user having stopped the run', () => {
    const b = new TranscriptBuilder('Find out why the exporter writes every row twice.')
      .edit('/workspace/src/export/writer.rs')
      .edit('/workspace/src/export/mod.rs')
      .user('Stop, leave the writer alone until we talk to the data team.')
      .bash('cd /workspace && git restore src/export/writer.rs && git status --short', 0, ' M src/export/mod.rs');
    expect(files(b)).toEqual(['src/export/mod.rs']);
  });

  it('`git checkout -- .` from a subfolder, and an edit made again after it', () => {
    const b = new TranscriptBuilder('Trim the trailing spaces the mailer adds.')
      .edit('/workspace/app/mailers/digest.rb')
      .edit('/workspace/app/views/digest.erb')
      .bash('cd /workspace/app && git checkout -- .', 0, '')
      .edit('/workspace/app/views/digest.erb');
    expect(files(b)).toEqual(['app/views/digest.erb']);
  });

  it('the stopped run\'s note lists no reverted file', () => {
    const b = new TranscriptBuilder('Find out why the exporter writes every row twice.')
      .bash('cd /workspace && grep -rn "flush_rows" src', 0, 'src/export/writer.rs:40: flush_rows(&mut buf);\nsrc/export/writer.rs:52: flush_rows(&mut buf);')
      .edit('/workspace/src/export/writer.rs')
      .user('Stop, do not change the writer yet.')
      .bash('cd /workspace && git checkout HEAD -- src/export/writer.rs', 0, '')
      .say('Reverted, nothing changed. `flush_rows` is called twice in src/export/writer.rs, once per batch and once at close, so every last batch is written twice.');
    const note = extractDeterministic(viewRollout(b.end('interrupted'), 'r')).find((m) => m.kind === 'task_state')?.text ?? '';
    expect(note).not.toContain('Files changed so far');
  });

  it.each([
    ['git checkout -- a.py b.py', ['a.py', 'b.py']],
    ['git -C web restore src/app.ts', ['web/src/app.ts']],
    ['git restore --staged src/app.ts', []],
    ['git checkout main', []],
    ['git reset --hard HEAD', 'all'],
    ['git reset --soft HEAD~1', []],
  ] as const)('%s', (cmd, want) => expect(revertedPaths(cmd)).toEqual(want));
});

describe('a switch of libraries the run made, said in its closing message', () => {
  const changed = (b: TranscriptBuilder) => texts(b).filter((t) => t.startsWith("The agent's final message says the repository changed"));
  const manifestEdit = (b: TranscriptBuilder, path: string, oldStr: string, newStr: string) =>
    b.tool('str_replace_based_edit_tool', { command: 'str_replace', path, old_str: oldStr, new_str: newStr }, 'The file has been edited.');

  it('a package.json pin replaced (Node)', () => {
    const b = new TranscriptBuilder('Drop moment from the invoice service, it is too heavy.');
    manifestEdit(b, '/workspace/package.json', '"moment": "^2.29.4",', '"dayjs": "^1.11.13",');
    manifestEdit(b, '/workspace/src/invoice/dates.ts', "import moment from 'moment';", "import dayjs from 'dayjs';");
    b.bash('cd /workspace && npm install && npm test', 0, 'Tests  57 passed (57)')
      .say('Replaced moment with dayjs in `src/invoice/dates.ts`; formats use `dayjs().format()` now and the bundle is 60 kB smaller. All 57 tests pass.');
    expect(changed(b)).toEqual(["The agent's final message says the repository changed: “Replaced moment with dayjs in `src/invoice/dates.ts`; formats use `dayjs().format()` now and the bundle is 60 kB smaller.”"]);
  });

  it('a crate added and another removed by cargo (Rust), said in Spanish', () => {
    const b = new TranscriptBuilder('Quita openssl del cliente HTTP.')
      .bash('cd /workspace && cargo remove reqwest && cargo add ureq@2.10', 0, 'Removing reqwest from dependencies\n      Adding ureq v2.10.1 to dependencies')
      .edit('/workspace/src/fetch.rs')
      .bash('cd /workspace && cargo test', 0, 'test result: ok. 14 passed; 0 failed')
      .say('El cliente HTTP ahora usa `ureq` en lugar de `reqwest`, así que ya no hace falta libssl-dev. Pasan los 14 tests.');
    expect(changed(b)).toHaveLength(1);
    expect(changed(b)[0]).toContain('`ureq` en lugar de `reqwest`');
  });

  it('a pin in a requirements folder (Python)', () => {
    const b = new TranscriptBuilder('Move the YAML loading off PyYAML.');
    manifestEdit(b, '/workspace/requirements/prod.txt', 'PyYAML==6.0.1', 'ruamel.yaml==0.18.6');
    b.bash('cd /workspace && pytest -q', 0, '33 passed in 1.20s').say('Swapped PyYAML for ruamel.yaml (round-trip loader keeps comments). 33 passed.');
    expect(changed(b)).toHaveLength(1);
  });

  it('not: a code change that names no library the run added', () => {
    const b = new TranscriptBuilder('Speed up the tile cache.');
    manifestEdit(b, '/workspace/Cargo.toml', 'lru = "0.12"', 'lru = "0.12"\nahash = "0.8"');
    manifestEdit(b, '/workspace/src/cache.rs', 'for i in 0..keys.len() {', 'for key in keys.iter() {');
    b.bash('cd /workspace && cargo test', 0, 'test result: ok. 9 passed; 0 failed')
      .say('Replaced the index loop with an iterator in `src/cache.rs` and hashed keys with ahash. 9 tests pass.');
    expect(changed(b)).toEqual([]);
  });

  it('not: a run that did not finish', () => {
    const b = new TranscriptBuilder('Drop moment from the invoice service.');
    manifestEdit(b, '/workspace/package.json', '"moment": "^2.29.4",', '"dayjs": "^1.11.13",');
    b.bash('cd /workspace && npm test', 1, 'FAIL src/invoice/dates.test.ts').say('Replaced moment with dayjs, but two date tests still fail.');
    expect(extractDeterministic(viewRollout(b.end('max_turns'), 'r')).filter((m) => m.text.startsWith("The agent's final message"))).toEqual([]);
  });
});
