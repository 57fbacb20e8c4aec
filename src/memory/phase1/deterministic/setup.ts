import type { RawMemory } from '../../types.js';
import { essentialCommand, sameCommand, splitCommand, systemPackages, workSegments, type Segment } from '../commands.js';
import { segmentOutcome } from '../outcome.js';
import { commandOf, type RolloutView, type Step } from '../rollout.js';
import { keywordsOf } from './text.js';
import { pushAll } from '../../../config/arrays.js';

/**
 * System packages the run installed (apt-get, apk, dnf …) that succeeded: the workspace needs them and
 * the sandbox image lacks them. One fact listing them all, with the command to install them (including
 * the package-list update and sudo when the run needed those). Nothing when `known` (the texts of this
 * rollout's fixes) already names every package.
 */
export function systemPackagesInstalled(view: RolloutView, known: string[] = []): RawMemory[] {
  const packages: string[] = [];
  const lines: number[] = [];
  let manager: Segment | undefined;
  let updated = false;
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (!cmd) continue;
    const segs = splitCommand(cmd);
    for (const seg of workSegments(segs)) {
      if (seg.category !== 'system' || segmentOutcome(step, segs, seg) !== 'passed') continue;
      if (/\b(update|-Sy)\b/.test(seg.core)) updated = true;
      const pkgs = systemPackages(seg);
      if (pkgs.length === 0) continue;
      manager ??= seg;
      for (const p of pkgs) if (!packages.includes(p)) packages.push(p);
      lines.push(step.callLine);
    }
  }
  if (!manager || packages.length === 0) return [];
  // A fix of this rollout already names every package (the install is part of its chain): one lesson, not two.
  if (packages.every((p) => known.some((k) => k.includes(p)))) return [];
  const program = manager.program;
  const sudo = manager.sudo ? 'sudo ' : '';
  const install =
    program === 'apt-get' || program === 'apt'
      ? `${updated ? `${sudo}${program} update && ` : ''}${sudo}${program} install -y ${packages.join(' ')}`
      : `${sudo}${program} ${manager.args.find((a) => !a.startsWith('-')) ?? 'install'} ${packages.join(' ')}`;
  return [
    {
      kind: 'fact',
      text: `System packages this workspace needs that the sandbox image lacks: ${packages.join(', ')}. Install them with \`${install}\`.`,
      evidence: { lines },
      importance: 4,
      keywords: keywordsOf([program, ...packages]),
    },
  ];
}

/**
 * Lockfiles and the words for them and for a package manager, in the languages the rules know: an agent that
 * says which one the repository uses ("the lockfile is pnpm's", "there's a package-lock.json, so this is an npm
 * project") chose the install command for a reason worth keeping.
 */
const LOCKFILE_TALK =
  /\b(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|deno\.lock|poetry\.lock|Pipfile\.lock|uv\.lock|pdm\.lock|requirements[\w.-]*\.txt|Gemfile\.lock|composer\.lock|Cargo\.lock|go\.sum|mix\.lock|pubspec\.lock|packages\.lock\.json|gradle\.lockfile|lock ?files?|package managers?|(is|as) an? (npm|pnpm|yarn|bun|poetry|uv|pipenv|bundler|composer) (project|repo(sitory)?)|uses (npm|pnpm|yarn|bun|poetry|uv|pipenv|bundler|composer)\b|Paketmanager|gestionnaire de paquets|fichier de verrouillage|gestor de paquetes|archivo de bloqueo|pakketbeheerder|menedżer pakietów|менеджер пакетов)|ロックファイル|パッケージマネージャ|锁文件|包管理器|잠금 파일|패키지 매니저/i;

/** Whether the agent said which package manager or lockfile the repository uses (`LOCKFILE_TALK`). */
function choseByLockfile(view: RolloutView): boolean {
  return view.said.some((s) => s.role === 'assistant' && LOCKFILE_TALK.test(s.text));
}

/**
 * The build and generate steps joined by `&&` right in front of `seg` (a filter piped from one, `2>&1 | tail -1`,
 * left out): `lazbuild --bm=Console t.lpi 2>&1 | tail -1 && ./tests/runtests` → [lazbuild …].
 */
function buildsBefore(segs: Segment[], seg: Segment): Segment[] {
  const out: Segment[] = [];
  for (let i = segs.indexOf(seg); i > 0; i -= 1) {
    const cur = segs[i]!;
    if (cur.piped) continue; // a filter: its `|` joins it to the step before
    if (cur.joiner !== '&&') break;
    const prev = segs.slice(0, i).reverse().find((x) => !x.piped);
    if (!prev || (prev.category !== 'build' && prev.category !== 'generate')) break;
    out.unshift(prev);
    i = segs.indexOf(prev) + 1;
  }
  return out;
}

/** A shell loop in a command line. */
const LOOP = /\b(?:for|while|until)\b[^\n]*?;\s*do\b/;

/**
 * Commands that worked and are worth retyping: dependency installs (when the agent said why that package
 * manager: `choseByLockfile`; a routine install the agent did not reason about is no lesson), and
 * a test entry point that is specific to the project (`pnpm run test:unit`, `ctest -L unit`,
 * `./scripts/check.sh`): the ecosystem's default (`pytest`, `npm test`, `make test`, `go test ./...`)
 * teaches nothing. Runs limited to a path (`vitest run src/x`) are not the suite. `known` holds commands
 * already covered by another lesson of this rollout, `preferences` the user's lasting rules (quoted).
 */
export function commandsThatWorked(view: RolloutView, known: string[], preferences: string[] = []): RawMemory[] {
  const out: RawMemory[] = [];
  const namedAsTests = testCommandsNamedByUser(view);
  const names = (texts: string[], seg: Segment) => texts.some((k) => [...k.matchAll(/`([^`]+)`/g)].some((m) => splitCommand(m[1]!).some((s) => sameCommand(s, seg))));
  // Another lesson already names it, in any spelling (`bash scripts/check.sh` / `./scripts/check.sh`). A script the
  // user named as the tests is said only in their quoted words (a preference): the lesson is stated here.
  const said = (seg: Segment) => names(known, seg) || (!(seg.category === 'other' && namedAsTests.some((n) => sameCommand(n, seg))) && names(preferences, seg));
  let install: { cmd: string; step: Step; seg: Segment } | undefined;
  let test: { cmd: string; step: Step; seg: Segment } | undefined;
  for (const step of view.steps) {
    const cmdText = commandOf(step);
    if (!cmdText) continue;
    const segs = splitCommand(cmdText);
    for (const seg of workSegments(segs)) {
      if (segmentOutcome(step, segs, seg) !== 'passed') continue;
      // The last install that passed is the one the run settled on: a first `npm install` that the user then
      // corrected ("we always use pnpm here") is not how to install, the `pnpm install` after it is.
      if (seg.category === 'install' && isDependencyInstall(seg)) install = { cmd: essentialCommand(segs, seg), step, seg };
      // Output sent to /dev/null cannot show failing tests: a 0 from it is only an exit code, which may lie.
      const isTest = seg.category === 'test' || (seg.category === 'other' && namedAsTests.some((n) => sameCommand(n, seg)));
      // Inside a loop (`for i in $(seq 1 20); do lune run tests | tail -n 1; done`) the suite is being rerun to
      // see whether it is flaky: that step shows a check, not how to run the tests.
      // The build it needs, typed in front of it (`lazbuild --bm=Console tests/runtests.lpi && ./tests/runtests`),
      // is part of running the tests: the runner alone runs what an older build made, or nothing.
      const builds = buildsBefore(segs, seg);
      if (isTest && isProjectSpecificTest(seg) && !seg.silenced && !LOOP.test(cmdText)) test = { cmd: [...builds.map((b) => b.text), essentialCommand(segs, seg)].join(' && '), step, seg };
    }
  }
  // A later failure of the same command means it did not keep working.
  const brokeLater = (c: { step: Step; seg: Segment }) =>
    view.steps.slice(c.step.index + 1).some((s) => {
      const segs = splitCommand(commandOf(s) ?? '');
      return segs.some((seg) => sameCommand(seg, c.seg) && segmentOutcome(s, segs, seg) === 'failed');
    });
  if (install && !said(install.seg) && !brokeLater(install) && choseByLockfile(view)) {
    out.push({
      kind: 'procedure',
      text: `Install the dependencies with \`${install.cmd}\` (worked in this workspace).`,
      evidence: { lines: [install.step.callLine, ...(install.step.resultLine ? [install.step.resultLine] : [])] },
      importance: 3,
      keywords: keywordsOf([install.seg.key, 'install', 'dependencies']),
    });
  }
  if (test && !said(test.seg) && !brokeLater(test)) {
    out.push({
      kind: 'procedure',
      text: `Run the tests with \`${test.cmd}\` (passed in this workspace).`,
      evidence: { lines: [test.step.callLine, ...(test.step.resultLine ? [test.step.resultLine] : [])] },
      importance: 3,
      keywords: keywordsOf([test.seg.key, 'tests']),
    });
  }
  return out;
}

function isDependencyInstall(seg: Segment): boolean {
  // `pip install -q --upgrade pip` and single global tools are not the project's dependencies.
  if (/--upgrade\s+pip\b|\s-g\b|--global\b/.test(seg.core)) return false;
  // `npm install left-pad`, `yarn add x`, `go get x`, `cargo install x` add a package or a tool; the lesson is the lockfile install.
  if (['npm', 'pnpm', 'yarn', 'bun'].includes(seg.program)) {
    const pos = seg.args.filter((a) => !a.startsWith('-'));
    return !/^(add)$/.test(pos[0] ?? '') && pos.length <= 1;
  }
  if ((seg.program === 'go' && seg.args[0] === 'get') || (seg.program === 'cargo' && seg.args[0] === 'install')) return false;
  if (seg.program === 'pip' || seg.program === 'pip3' || /-m pip/.test(seg.core)) return /\s-r\s|\s-e\s|\s\.(\[|\s|$)/.test(`${seg.core} `);
  return true;
}

/**
 * A word for tests or checks beside a code span: the user's "run the tests with `./ci/regress.sh`" in any of the
 * languages whose users keep the technical word (`tests`, `Tests`, `testes`, `testy`, `テスト`, `测试` …). Within
 * 40 characters of the span, on either side, in one clause.
 */
const TEST_WORD = /\b(?:tests?|testes|testen|testy|testit|testler|tester|testai)\b|テスト|测试|測試|테스트|тест/i;
/** Where a clause ends: a sentence's punctuation followed by a blank, or a line break. */
const CLAUSE_END = /[.;!?]\s|[。！？\n]/;

/**
 * Commands the user named as the way to run the tests (a code span next to a word for tests: "From now on run
 * tests with `./ci/regress.sh`", whatever the sentence's language), as segments: a script with no test word in
 * its name (`./ci/regress.sh`, `./run-all`) is otherwise not known as the suite's entry point. Only a command the
 * run then ran and that passed becomes a lesson (`commandsThatWorked`).
 */
function testCommandsNamedByUser(view: RolloutView): Segment[] {
  const out: Segment[] = [];
  for (const s of view.said.filter((x) => x.role === 'user')) {
    for (const m of s.text.matchAll(/`([^`\n]{2,200})`/g)) {
      const before = s.text.slice(Math.max(0, m.index! - 40), m.index!).split(CLAUSE_END).at(-1) ?? '';
      const after = s.text.slice(m.index! + m[0].length, m.index! + m[0].length + 40).split(CLAUSE_END)[0] ?? '';
      if (TEST_WORD.test(`${before} ${after}`)) pushAll(out, workSegments(splitCommand(m[1]!)));
    }
  }
  return out;
}

/** The ecosystem's default way to run a suite: it teaches nothing (any agent tries it first). */
const DEFAULT_PROGRAMS = /^(pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|ctest|phpunit|pest|ava|tap|karma|prove|busted|bats|gotestsum|nose2|nosetests|behave|cucumber|kaocha|elm-test|shellspec)$/;
const DEFAULT_KEYS =
  /^(npm|pnpm|yarn|bun) (test|t|tst|run test)$|^(make|gmake|ninja) (test|tests|check)$|^(go|cargo|dotnet|mix|deno|swift|sbt|lein|meson|bazel|zig|flutter|dart|stack|cabal|dune|nimble|forge|pio|platformio|gleam|raco|alr|fpm|just|task|v|dub|bb) test$|^crystal spec$|^rebar3 (eunit|ct)$|^dune runtest$|^julia .*Pkg\.test\(\)$|^Rscript .*(devtools|testthat)::test\w*\(\)$|^cargo nextest$|^(mvn|mvnw|gradle|gradlew)\b|^python[\d.]* -m (pytest|unittest)$|^rake( test| spec)?$|^rails test$|^terraform (validate|fmt)\b|^(helm|ansible-lint|tflint|hadolint|yamllint|shellcheck)\b/;

/** Variables set in front of a command out of habit, not because the project needs them. */
const HABIT_VARIABLES = /^(CI|FORCE_COLOR|NO_COLOR|TERM|PAGER|GIT_PAGER|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|RUST_BACKTRACE|NODE_ENV|COLUMNS|LANG|LC_ALL|TZ|DEBIAN_FRONTEND|HOME|PATH)=/;

/**
 * A variable set out of habit (`CI=1`, `NO_COLOR=1`), not because the project needs it. `PATH` is one only while it
 * adds the system's own directories: `PATH=/usr/local/openresty/nginx/sbin:$PATH` is where this suite finds its
 * server, which the next run needs too.
 */
function habitVariable(assignment: string): boolean {
  if (!HABIT_VARIABLES.test(assignment)) return false;
  if (!assignment.startsWith('PATH=')) return true;
  return assignment
    .slice(5)
    .replace(/^["']|["']$/g, '')
    .split(':')
    .every((d) => /^(\$\{?PATH\}?|\/usr\/local\/s?bin|\/usr\/s?bin|\/s?bin)\/?$/.test(d));
}

export function isProjectSpecificTest(seg: Segment): boolean {
  let args = seg.args;
  if (/^python[\d.]*$/.test(seg.program) && args[0] === '-m') args = args.slice(2);
  // Where make runs (`make -C test/host`) is the suite's folder, not a part of it.
  if (/^(g?make|ninja)$/.test(seg.program)) args = args.filter((a, i) => a !== '-C' && args[i - 1] !== '-C');
  // A path argument narrows the run to part of the suite (`go test ./...` is all of it).
  // A glob over a whole folder (`pg_prove test/*.sql`, `bats tests/*.bats`) is all of it too.
  const narrowing = args.filter((a) => !a.startsWith('-') && /[/.]/.test(a) && !/^\.\/\.\.\.$|^\.\.\.$/.test(a) && !/^[\w./-]*\/\*(\.\w+)?$/.test(a));
  // A word passed through a package script to its runner after `--` (`npm run test:unit -- accountSummary`) is a
  // pattern that picks the tests this run was working on; options there (`-- --coverage`) keep the whole suite.
  if (/^(npm|pnpm|yarn|bun)$/.test(seg.program) && args.includes('--') && args.slice(args.indexOf('--') + 1).some((a) => !a.startsWith('-'))) return false;
  if (narrowing.length > 0 && !(seg.program === 'ctest' && args.includes('--test-dir'))) return false;
  // A script run with a filter (`php artisan test --filter=Register`, `manage.py test -k login`) ran the part
  // this run was working on; the script alone is the project's way to run the suite.
  if (seg.script) return !args.some((a) => /^-(k|t|run)$|^--(filter|grep|tests?|only)\b/.test(a));
  // A variable the suite needs (`SPROCKET_VECTORS=tests/vectors make test`, `make CC=gcc test`) is this project's,
  // unless every agent sets it out of habit (`CI=1`, `NO_COLOR=1`).
  const vars = [...seg.canonical.slice(0, seg.canonical.indexOf(seg.program)).split(/\s+/), ...(/make$/.test(seg.program) ? args : [])].filter((w) => /^[A-Za-z_]\w*=/.test(w));
  if (vars.some((v) => !habitVariable(v))) return true;
  const pytest = seg.key.includes('pytest');
  const filters = args.filter((a) => /^-(L|E|R)$|^--(label|label-regex|filter|project|selectProjects)\b/.test(a) || (pytest && /^-(k|m)$/.test(a)));
  // A filter on a label (`ctest -L unit`, `-m "not slow"`) picks a suite; one naming a test (`--filter
  // LogCommandTests`, `-k test_parse`) picks what this run was working on.
  const value = (f: string) => (f.includes('=') ? f.slice(f.indexOf('=') + 1) : (args[args.indexOf(f) + 1] ?? ''));
  if (filters.some((f) => /Tests?\b|Spec\b|^test_|_test\b|::|\.test\b/.test(value(f)))) return false;
  if (filters.length > 0) return true;
  // A tool's own bare test subcommand (`hardhat test`, `foo test`), with nothing but options, is what any agent
  // tries first, for tools the list above does not name too.
  if (!seg.script && seg.args.filter((a) => !a.startsWith('-')).length === 1 && /^(test|tests|spec|check)$/.test(seg.args.find((a) => !a.startsWith('-'))!)) return false;
  return !DEFAULT_PROGRAMS.test(seg.program) && !DEFAULT_KEYS.test(seg.key);
}
