/**
 * Issue 12, kinds found on the corpus part `heldout-g` once it was tuned on (each test failed before its rule
 * changed; the transcripts are written for these tests, other tools than the corpus runs):
 * - a daemon started between a failure and its rerun (`epmd -daemon`, `--daemonize`) is setup of the chain, even
 *   when its line goes on with `;`;
 * - a test runner this project does not know by name still names its failed test (`suite ==> case: FAILED`,
 *   `name ... FAILED`), so a fail-then-identical-pass is a flaky-test lesson;
 * - another form of a command gets past its first error, then fails on one test that passes on the identical
 *   rerun: two lessons, the form and the flaky test, not one "what worked" that hides both.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { failedTestNames } from '../../src/memory/phase1/deterministic/flaky.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = (b: TranscriptBuilder, outcome: Parameters<TranscriptBuilder['end']>[0] = 'completed') => extractDeterministic(viewRollout(b.end(outcome), 'r'));

describe('a daemon started before the rerun is part of the chain', () => {
  for (const start of ['gpg-agent --daemon; sleep 1; gpg-connect-agent /bye', 'dbus-daemon --session --fork --address=unix:path=/tmp/bus', 'memgraph-lite --daemonize yes']) {
    it(`\`${start.split(' ')[0]}\``, () => {
      const b = new TranscriptBuilder('sign the release notes test')
        .bash('make check', 2, 'error: agent not reachable: connection refused\nmake: *** [check] Error 2')
        .say('The tests talk to a daemon that is not running here. Start it and retry.')
        .bash(start, 0, 'ok')
        .bash('make check', 0, 'all 14 checks passed');
      const m = extract(b).filter((x) => x.text.includes('make check'));
      expect(m).toHaveLength(1);
      expect(m[0]!.text).toContain(start.split(';')[0]!.trim());
    });
  }
  it('`git checkout --detach` is no daemon', () => {
    const b = new TranscriptBuilder('fix the build')
      .bash('make check', 2, 'error: tag v1.2 not found\nmake: *** [check] Error 2')
      .bash('git checkout --detach v1.2', 0, 'HEAD is now at 1a2b3c4')
      .bash('make check', 0, 'all 14 checks passed');
    expect(extract(b).some((x) => x.text.includes('needs `git checkout'))).toBe(false);
  });
});

describe('failed test names of runners not listed', () => {
  it('Erlang Common Test and a generic `name ... FAILED` line', () => {
    expect(failedTestNames('%%% cache_SUITE: evicts_oldest...\n%%% cache_SUITE ==> evicts_oldest: FAILED\n%%% cache_SUITE ==> {timetrap_timeout,3000}')).toEqual(['cache_SUITE:evicts_oldest']);
    expect(failedTestNames('  store.lru_test:evicts_oldest ... FAILED')).toEqual(['store.lru_test:evicts_oldest']);
    expect(failedTestNames('BUILD FAILED\nTests FAILED\n> Task :app:test FAILED')).toEqual([]);
  });
  it('a fail then an identical pass names the test as flaky', () => {
    const b = new TranscriptBuilder('add a TTL to the cache')
      .edit('/workspace/src/cache.erl')
      .bash('rebar3 ct 2>&1 | tail -5', 1, '%%% cache_SUITE: evicts_oldest...\n%%% cache_SUITE ==> evicts_oldest: FAILED\n%%% cache_SUITE ==> {timetrap_timeout,3000}\nFailed 1 tests. Passed 9 tests.')
      .say('Rerunning the same command without changes.')
      .bash('rebar3 ct 2>&1 | tail -5', 0, 'All 10 tests passed.');
    const m = extract(b).filter((x) => /flaky/i.test(x.text));
    expect(m).toHaveLength(1);
    expect(m[0]!.text).toContain('evicts_oldest');
  });
});

describe('a form that got past the first error, then a flaky test', () => {
  it('two lessons: the form, and the flaky test named', () => {
    const b = new TranscriptBuilder('add the export button and run the browser tests')
      .edit('/workspace/src/Export.tsx')
      .bash('npx wdio run wdio.conf.ts 2>&1 | tail -5', 1, 'Error: Failed to launch the browser: chromedriver not found in /root/.cache/wdio\nSpec Files: 0 passed, 3 failed')
      .bash('npx @wdio/cli install chromedriver 2>&1 | tail -2', 1, 'Error: getaddrinfo EAI_AGAIN storage.googleapis.com')
      .say('No network for the download; the image has the driver under /opt/wdio.')
      .bash('WDIO_CACHE_DIR=/opt/wdio npx wdio run wdio.conf.ts 2>&1 | tail -6', 1, '     ✓ renders the table\n     ✖ exports a csv\n\n3 passing (4.1s)\n1 failing\nError: element (\"#export\") still not clickable after 5000ms')
      .bash('WDIO_CACHE_DIR=/opt/wdio npx wdio run wdio.conf.ts 2>&1 | tail -6', 0, '4 passing (3.9s)');
    const out = extract(b);
    const form = out.filter((x) => x.text.includes('WDIO_CACHE_DIR=/opt/wdio') && !/flaky/i.test(x.text));
    expect(form).toHaveLength(1);
    const flaky = out.filter((x) => /flaky/i.test(x.text));
    expect(flaky).toHaveLength(1);
    expect(flaky[0]!.text).toContain('exports a csv');
  });
});

describe('lasting preferences and repository changes in languages the first lists lacked', () => {
  const prefs = (task: string, mid?: string) => {
    const b = new TranscriptBuilder(task).bash('make test', 0, 'ok');
    if (mid) b.user(mid).say('OK.');
    return extract(b).filter((x) => x.kind === 'preference');
  };
  const lasting: Array<[string, string, string]> = [
    ['Welsh', 'Trwsia’r prawf. O hyn ymlaen rhedeg `ruff check` cyn pob commit.', 'ruff check'],
    ['Marathi', 'चाचणी दुरुस्त कर. यापुढे प्रत्येक commit आधी `go vet ./...` चालव.', 'go vet'],
    ['Kazakh', 'Тестті түзет. Бұдан былай әрқашан `mix format --check-formatted` іске қос.', 'mix format'],
    ['Georgian', 'შეასწორე ტესტი. ამიერიდან ყოველთვის გაუშვი `deno lint` commit-მდე.', 'deno lint'],
    ['Azerbaijani', 'Testi düzəlt. Həmişə `black --check .` işlət, bu bizim qaydamızdır.', 'black --check'],
    ['Urdu, sentence end ۔', 'ٹیسٹ ٹھیک کرو۔ آئندہ ہمیشہ `npm run lint` چلانا۔ فی الحال README کو مت چھونا۔', 'npm run lint'],
    ['Malayalam', 'ടെസ്റ്റ് ശരിയാക്കൂ. ഇനി മുതൽ `cargo fmt --check` ഓടിക്കണം.', 'cargo fmt'],
  ];
  for (const [lang, task, cmd] of lasting) {
    it(`${lang}: the lasting clause is a preference, the one-off part is not`, () => {
      const p = prefs(task);
      expect(p).toHaveLength(1);
      expect(p[0]!.text).toContain(cmd);
      expect(p[0]!.text).not.toMatch(/README|Trwsia|दुरुस्त|түзет|შეასწორე|düzəlt|ശരിയാക്കൂ/);
    });
  }
  const oneOff: Array<[string, string]> = [
    ['Armenian', 'Ուղղիր թեստը։ Այս անգամ մի՛ փոխիր `Cargo.lock`-ը։'],
    ['Kazakh', 'Тестті түзет. Бұл жолы `CHANGELOG.md` файлын өзгертпе.'],
    ['Icelandic', 'Lagaðu prófið. Ekki snerta `Makefile` í þetta skiptið.'],
    ['Tamil', 'சோதனையை சரி செய். இந்த முறை `go.sum`-ஐ தொடாதே.'],
  ];
  for (const [lang, task] of oneOff) {
    it(`${lang}: an order for this run only is no preference`, () => {
      expect(prefs(task)).toHaveLength(0);
    });
  }
  it('a dash after a lasting clause spells out the same rule (Albanian-like, Basque)', () => {
    const p = prefs('Rregullo testin.', 'Mirë. Hemendik aurrera ez jarri gakoak config.yaml-en — erabili `vault kv get` horretarako.');
    expect(p).toHaveLength(1);
    expect(p[0]!.text).toContain('vault kv get');
  });
  const changes: Array<[string, string, string]> = [
    ['Icelandic', 'Við notum ekki lengur Jest, allt er á Vitest. Lagaðu prófið.', 'Vitest'],
    ['Basque', 'MySQL ez da jada beharrezkoa: SQLite erabiltzen dugu orain. Konpondu proba.', 'SQLite'],
    ['Georgian', 'Webpack-ს აღარ ვიყენებთ, ახლა Vite გვაქვს. შეასწორე ტესტი.', 'Vite'],
    ['Estonian word order', 'Me ei kasuta enam Poetryt, nüüd on uv. Paranda test.', 'uv'],
  ];
  for (const [lang, task, now] of changes) {
    it(`${lang}: a statement that the repository changed is a fact`, () => {
      const f = extract(new TranscriptBuilder(task).bash('make test', 0, 'ok')).filter((x) => x.kind === 'fact' && x.text.includes('changed'));
      expect(f).toHaveLength(1);
      expect(f[0]!.text).toContain(now);
    });
  }
});

describe('a variable set in front of the command is setup of the same chain', () => {
  it('install, then `VAR=x cmd`: one lesson with both, not a partial one per step', () => {
    const b = new TranscriptBuilder('build the docs site')
      .bash('mkdocs build --strict 2>&1 | tail -3', 1, "ERROR   -  Config value 'theme': Unrecognised theme name: 'material'.\nAborted with 1 configuration errors!")
      .bash('pip install mkdocs-material==9.5.3 2>&1 | tail -1 && mkdocs build --strict 2>&1 | tail -3', 1, 'Successfully installed mkdocs-material-9.5.3\nERROR   -  plugin "social": cairosvg needs libcairo: OSError: no library called "cairo-2" was found\nAborted with 1 configuration errors!')
      .say('The social plugin is switched off by an env flag for local builds.')
      .bash('DOCS_SOCIAL=0 mkdocs build --strict 2>&1 | tail -2', 0, 'INFO    -  Documentation built in 2.31 seconds');
    const m = extract(b).filter((x) => x.text.includes('mkdocs build'));
    expect(m).toHaveLength(1);
    expect(m[0]!.text).toContain('pip install mkdocs-material==9.5.3');
    expect(m[0]!.text).toContain('DOCS_SOCIAL=0');
  });
});

describe("setup by the failing command's own tool is part of the chain", () => {
  it('`gcloud auth …` and `gcloud config set …` between the failures, then the command passes', () => {
    const b = new TranscriptBuilder('deploy the staging build')
      .bash('gcloud builds submit --config cloudbuild.yaml 2>&1 | tail -2', 1, 'ERROR: (gcloud.builds.submit) You do not currently have an active account selected.')
      .bash('gcloud auth activate-service-account --key-file=/run/ci/sa.json', 0, 'Activated service account credentials')
      .bash('gcloud auth list', 0, '* ci@example.invalid')
      .bash('gcloud builds submit --config cloudbuild.yaml 2>&1 | tail -2', 1, 'ERROR: (gcloud.builds.submit) The required property [project] is not currently set.')
      .bash('gcloud config set project kestrel-staging', 0, 'Updated property [core/project].')
      .bash('gcloud builds submit --config cloudbuild.yaml 2>&1 | tail -2', 0, 'DONE');
    const m = extract(b).filter((x) => x.text.includes('gcloud builds submit'));
    expect(m).toHaveLength(1);
    expect(m[0]!.text).toContain('gcloud auth activate-service-account');
    expect(m[0]!.text).toContain('gcloud config set project kestrel-staging');
    expect(m[0]!.text).not.toContain('gcloud auth list');
  });
  it('a formatter of the same tool is no setup (it changed the code)', () => {
    const b = new TranscriptBuilder('fix the warnings')
      .bash('cargo clippy -- -D warnings', 101, 'error: this expression creates a reference which is immediately dereferenced')
      .bash('cargo fmt', 0, '')
      .bash('cargo clippy -- -D warnings', 0, 'Finished');
    expect(extract(b).some((x) => x.text.includes('needs `cargo fmt`'))).toBe(false);
  });
});

describe('a wrapper that exits 0 on failure', () => {
  it('`make deploy-check` printed an error with status 0: a pitfall naming it', () => {
    const b = new TranscriptBuilder('check the deploy config')
      .bash('make deploy-check', 0, 'helm lint charts/app\nError: unable to parse charts/app/values.yaml: yaml: line 7: mapping values are not allowed here')
      .say('It printed an error and still exited 0; the target ends in `|| true`. Running helm directly.')
      .bash('helm lint charts/app', 1, 'Error: unable to parse charts/app/values.yaml')
      .edit('/workspace/charts/app/values.yaml')
      .bash('helm lint charts/app', 0, '1 chart(s) linted, 0 chart(s) failed');
    const m = extract(b).filter((x) => x.text.includes('`make deploy-check` exits 0'));
    expect(m).toHaveLength(1);
  });
  it('a wrapper that passed clean is no pitfall', () => {
    const b = new TranscriptBuilder('check the deploy config').bash('make deploy-check', 0, '1 chart(s) linted, 0 chart(s) failed');
    expect(extract(b).some((x) => x.text.includes('exits 0'))).toBe(false);
  });
});
