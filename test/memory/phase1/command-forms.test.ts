import { describe, expect, it } from 'vitest';
import { essentialCommand, filesWrittenBy, mainSegment, splitCommand, workSegments } from '../../../src/memory/phase1/commands.js';
import { extractDeterministic } from '../../../src/memory/phase1/deterministic/index.js';
import { segmentOutcome } from '../../../src/memory/phase1/outcome.js';
import { viewRollout } from '../../../src/memory/phase1/rollout.js';
import { tokenize } from '../../../src/memory/phase1/shell-words.js';
import { TranscriptBuilder } from './build.js';

const main = (cmd: string) => mainSegment(splitCommand(cmd));

describe('the forms an agent types classify like the plain command', () => {
  // [as typed, category, canonical form of the main segment]
  const forms: Array<[string, string, string]> = [
    ['./scripts/check.sh', 'test', 'scripts/check.sh'],
    ['bash scripts/check.sh', 'test', 'scripts/check.sh'],
    ['sh ./scripts/check.sh', 'test', 'scripts/check.sh'],
    ['bash -euo pipefail scripts/check.sh', 'test', 'scripts/check.sh'],
    ['scripts/check.sh', 'test', 'scripts/check.sh'],
    ['/workspace/scripts/check.sh', 'test', 'scripts/check.sh'],
    ['cd /workspace && bash scripts/check.sh 2>&1 | tail -20', 'test', 'scripts/check.sh'],
    ['cd /workspace; ./scripts/check.sh || true', 'test', 'scripts/check.sh'],
    ['( cd /workspace && ./scripts/check.sh ) ; echo $?', 'test', 'scripts/check.sh'],
    ["bash -c 'cd /workspace && ./scripts/check.sh'", 'test', 'scripts/check.sh'],
    ['sudo -E -u agent ./scripts/check.sh', 'test', 'scripts/check.sh'],
    ['FOO=1 CI=true npm test', 'test', 'FOO=1 CI=true npm test'],
    ['timeout 60 npm test', 'test', 'npm test'],
    ['timeout -s KILL 5m npm test && echo ok', 'test', 'npm test'],
    ['time -p npm t', 'test', 'npm t'],
    ['env -u HTTP_PROXY CI=1 npm run test:unit', 'test', 'CI=1 npm run test:unit'],
    ['npm --prefix web test', 'test', 'npm --prefix web test'],
    ['yarn test', 'test', 'yarn test'],
    ['yarn workspace api test', 'test', 'yarn workspace api test'],
    ['pnpm test', 'test', 'pnpm test'],
    ['pnpm -C packages/core run test:unit', 'test', 'pnpm -C packages/core run test:unit'],
    ['npx vitest run', 'test', 'vitest run'],
    ['npx -y jest --ci', 'test', 'jest --ci'],
    ['pnpm exec vitest run', 'test', 'vitest run'],
    ['node_modules/.bin/vitest run', 'test', 'vitest run'],
    ['python -m pytest -q', 'test', 'python -m pytest -q'],
    ['python3 -m pytest -q', 'test', 'python -m pytest -q'],
    ['python3.11 -m pytest', 'test', 'python -m pytest'],
    ['pytest -x', 'test', 'pytest -x'],
    ['uv run pytest', 'test', 'pytest'],
    ['poetry run pytest -q', 'test', 'pytest -q'],
    ['coverage run -m pytest', 'test', 'python -m pytest'],
    ['python manage.py test', 'test', 'manage.py test'],
    ['python3 tools/run_tests.py', 'test', 'tools/run_tests.py'],
    ['make test', 'test', 'make test'],
    ['make -C build -j 4 test', 'test', 'make -C build -j 4 test'],
    ['go test ./...', 'test', 'go test ./...'],
    ['cargo test', 'test', 'cargo test'],
    ['cargo +nightly test --workspace', 'test', 'cargo +nightly test --workspace'],
    ['bundle exec rspec', 'test', 'rspec'],
    ['bundle exec rake test', 'test', 'rake test'],
    ['nix develop .#ci --extra-experimental-features "nix-command flakes" -c pytest -q', 'test', 'pytest -q'],
    ['nix shell nixpkgs#python3 --command pytest -q', 'test', 'pytest -q'],
    ["nix-shell --pure --run 'make test'", 'test', 'make test'],
    ['mise exec python@3.12 -- pytest -q', 'test', 'pytest -q'],
    ['devbox run make test', 'test', 'make test'],
    ['direnv exec . npm test', 'test', 'npm test'],
    ['dotenv -e .env.test -- npm test', 'test', 'npm test'],
    ['mvn -q test', 'test', 'mvn -q test'],
    ['./mvnw -B verify', 'test', 'mvnw -B verify'],
    ['gradle test', 'test', 'gradle test'],
    ['./gradlew :core:test', 'test', 'gradlew :core:test'],
    ['ctest --test-dir build -L unit', 'test', 'ctest --test-dir build -L unit'],
    ['dotnet test', 'test', 'dotnet test'],
    ['script/cibuild', 'test', 'script/cibuild'],
    ['./run_tests.sh', 'test', 'run_tests.sh'],
    ['bash hack/verify-all.sh', 'test', 'hack/verify-all.sh'],
    ['npm ci', 'install', 'npm ci'],
    ['sudo DEBIAN_FRONTEND=noninteractive apt-get install -y libpq-dev', 'system', 'DEBIAN_FRONTEND=noninteractive apt-get install -y libpq-dev'],
    ['./scripts/bootstrap', 'install', 'scripts/bootstrap'],
    ['bash scripts/build.sh', 'build', 'scripts/build.sh'],
    ['make -j4', 'build', 'make -j4'],
  ];
  it.each(forms)('%s → %s', (cmd, category, canonical) => {
    const m = main(cmd);
    expect(m?.category).toBe(category);
    expect(m?.canonical).toBe(canonical);
  });

  it('is not fooled into a test by words that only look like one', () => {
    expect(main('make clean')?.category).toBe('other');
    expect(main('make lint')?.category).toBe('other');
    expect(main('bash scripts/deploy.sh')?.category).toBe('other');
    // A tool's installer from outside the workspace is not the project's dependency install.
    expect(main('sudo /tmp/ruby-build/install.sh')?.category).toBe('other');
    expect(main('python -c "import pytest"')?.category).toBe('other');
    expect(main('echo "npm test && make test"')).toBeUndefined();
    expect(main('grep -r test src')).toBeUndefined();
    // A wrapper with nothing to wrap is the command itself.
    expect(splitCommand('env | sort')[0]).toMatchObject({ program: 'env', category: 'inspect' });
    expect(workSegments(splitCommand('cd /workspace && set -o pipefail; true'))).toEqual([]);
  });

  it('skips here-document bodies and comments', () => {
    const cmd = "cat > notes.md <<'EOF'\nnpm test\nmake test\nEOF\n# npm ci\nls";
    expect(splitCommand(cmd).map((s) => s.program)).toEqual(['cat', 'ls']);
    expect(filesWrittenBy(cmd)).toEqual(['notes.md']);
  });

  it('tokenizes quotes, escapes, $( ) and redirections', () => {
    const t = tokenize(`FOO="a b" echo 'x;y' "$(date +%s)" a\\ b 2>&1 >out.txt`);
    expect(t.map((x) => [x.kind, x.value])).toEqual([
      ['word', 'FOO=a b'],
      ['word', 'echo'],
      ['word', 'x;y'],
      ['word', '$(date +%s)'],
      ['word', 'a b'],
      ['redirect', '1'],
      ['redirect', 'out.txt'],
    ]);
  });

  it('keeps a `cd` into a subfolder as part of how the command is run, and drops `cd` to the root', () => {
    expect(essentialCommand(splitCommand('cd /workspace && npm test 2>&1 | tail -5'))).toBe('npm test');
    expect(essentialCommand(splitCommand('cd web && npm test'))).toBe('cd web && npm test');
    // Timing and detaching wrappers are not part of the lesson; sudo and variables are.
    expect(essentialCommand(splitCommand('time (cmake --build build -j4 2>&1 | tail -n 19)'))).toBe('cmake --build build -j4');
    expect(essentialCommand(splitCommand('timeout 120 nice -n 5 CI=1 npm test'))).toBe('CI=1 npm test');
    expect(essentialCommand(splitCommand('sudo -E apt-get install -y jq >/dev/null'))).toBe('sudo -E apt-get install -y jq');
  });
});

describe('segmentOutcome: the exit code is not always the command’s', () => {
  const step = (command: string, exitCode: number, output: string) => viewRollout(new TranscriptBuilder('x').bash(command, exitCode, output).end(), 'r').steps[0]!;
  const outcome = (command: string, exitCode: number, output: string) => {
    const segs = splitCommand(command);
    return segmentOutcome(step(command, exitCode, output), segs, mainSegment(segs)!);
  };
  it('reads a filtered or ignored status from the output', () => {
    expect(outcome('npm test 2>&1 | tail -20', 0, 'Tests: 2 failed, 10 passed')).toBe('failed');
    expect(outcome('npm test 2>&1 | tail -20', 0, 'Tests: 12 passed')).toBe('passed');
    expect(outcome('pytest -q || true', 0, '3 failed, 9 passed in 0.4s')).toBe('failed');
    expect(outcome('set -o pipefail; npm test | tail -3', 1, 'x')).toBe('failed');
  });
  it('takes the code printed by `; echo $?`', () => {
    expect(outcome('make test; echo "exit=$?"', 0, 'ok\nexit=2')).toBe('failed');
    expect(outcome('make test; echo $?', 0, 'all good\n0')).toBe('passed');
  });
  it('a segment before a later `&&` segment that passed ran, even when a pipe hides the status', () => {
    const seg = (command: string, i: number, exitCode: number, output: string) => {
      const segs = splitCommand(command);
      return segmentOutcome(step(command, exitCode, output), segs, segs[i]!);
    };
    expect(seg('sudo apt-get install -y libssl-dev && cd /workspace && cargo test 2>&1 | tail -8', 0, 0, 'test result: ok. 24 passed')).toBe('passed');
    expect(seg('pip install -e . && pytest -q | tail -3', 0, 0, '12 passed in 0.3s')).toBe('passed');
    // A later segment that failed proves nothing: the status may be any one's.
    expect(seg('pip install -e . && pytest -q | tail -3', 0, 0, '2 failed, 10 passed')).not.toBe('passed');
    // Joined by `;`, the later one runs whatever happened before.
    expect(seg('pip install -e . ; pytest -q | tail -3', 0, 0, '12 passed in 0.3s')).not.toBe('passed');
  });
  it('learns the whole chain when the rerun hides the status of its setup behind a pipe', () => {
    const b = new TranscriptBuilder('add a CA bundle option')
      .bash('cargo test', 101, 'error: linker `clang` not found')
      .bash('sudo apt-get update -qq && sudo apt-get install -y -qq clang mold && cargo test', 101, "Setting up mold ...\nerror: failed to run custom build command for `openssl-sys`\nCould not find directory of OpenSSL installation")
      .bash('sudo apt-get install -y -qq pkg-config libssl-dev && cargo test 2>&1 | tail -8', 0, 'test result: ok. 24 passed; 0 failed');
    const m = extractDeterministic(viewRollout(b.end(), 'r')).filter((x) => x.text.includes('clang mold'));
    expect(m).toHaveLength(1);
    expect(m[0]!.text).toContain('pkg-config libssl-dev');
  });
  it('trusts the status through `&& echo ok`', () => {
    expect(outcome('cargo test && echo ok', 101, 'test result: FAILED')).toBe('failed');
    expect(outcome('cargo test && echo ok', 0, 'ok')).toBe('passed');
  });
});

describe('lessons from the forms an agent types', () => {
  const extract = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end(), 'r'));

  it('learns the project test script whether run as `bash X`, `sh X` or `./X`', () => {
    for (const cmd of ['bash scripts/check.sh', 'sh scripts/check.sh', './scripts/check.sh', 'cd /workspace && bash scripts/check.sh 2>&1 | tail -20']) {
      const m = extract(new TranscriptBuilder('fix it').edit('/workspace/src/a.ts').bash(cmd, 0, 'all 42 tests passed'));
      const lesson = m.filter((x) => /Run the tests with/.test(x.text));
      expect(lesson, cmd).toHaveLength(1);
      expect(lesson[0]!.text).toContain('scripts/check.sh');
    }
  });

  it('two spellings of one command that both pass are one lesson, in the last form that worked', () => {
    const m = extract(new TranscriptBuilder('x').bash('./scripts/check.sh', 0, 'ok').edit('/workspace/src/a.ts').bash('bash scripts/check.sh', 0, 'ok'));
    const lessons = m.filter((x) => /scripts\/check\.sh/.test(x.text));
    expect(lessons).toHaveLength(1);
    expect(lessons[0]!.text).toContain('`bash scripts/check.sh`');
  });

  it('a script that is not executable, then run with bash: one pitfall naming the form that worked', () => {
    const m = extract(
      new TranscriptBuilder('x')
        .bash('./scripts/check.sh', 126, 'bash: ./scripts/check.sh: Permission denied')
        .bash('bash scripts/check.sh', 0, 'all checks passed'),
    );
    const lessons = m.filter((x) => /scripts\/check\.sh/.test(x.text));
    expect(lessons).toHaveLength(1);
    expect(lessons[0]!.text).toMatch(/What worked: `bash scripts\/check\.sh`/);
    expect(lessons[0]!.text).toMatch(/Permission denied/);
  });

  it('the same script retried in another spelling without a cause is a plain retry: no pitfall', () => {
    const m = extract(new TranscriptBuilder('x').bash('bash scripts/check.sh', 1, 'FAIL flaky_test').bash('./scripts/check.sh', 0, 'ok'));
    expect(m.filter((x) => x.kind === 'pitfall')).toEqual([]);
  });

  it('a suite piped into tail that printed failures is not learned as passing', () => {
    const m = extract(new TranscriptBuilder('x').bash('bash scripts/check.sh 2>&1 | tail -20', 0, 'FAILED tests/test_a.py::test_x\n1 failed, 3 passed'));
    expect(m.filter((x) => /Run the tests with/.test(x.text))).toEqual([]);
  });

  it("an ecosystem's stock check (`terraform validate`, `helm lint`) is no project-specific test command", () => {
    for (const cmd of ['cd /workspace/terraform/storage && terraform validate', 'helm lint charts/api', 'terraform fmt -check -recursive']) {
      const m = extract(new TranscriptBuilder('x').bash(cmd, 0, 'Success! The configuration is valid.'));
      expect(m.filter((x) => /Run the tests with/.test(x.text)), cmd).toEqual([]);
    }
    const own = extract(new TranscriptBuilder('x').bash('bash scripts/test.sh', 0, 'ok'));
    expect(own.map((x) => x.text)).toEqual(['Run the tests with `bash scripts/test.sh` (passed in this workspace).']);
  });
});

describe('rules that must hold on a repository never seen', () => {
  const extract = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end(), 'r'));

  it('keeps short lasting corrections and ones in scripts without spaces; skips one-off orders and acknowledgements in several languages', () => {
    const m = extract(
      new TranscriptBuilder('x').bash('ls', 0, 'a').user('always use pnpm').user('use yarn').user('モックは今後使わないでください').user('ok, danke!').user('好的').user('thanks, go ahead'),
    );
    expect(m.map((x) => x.text)).toEqual(['The user said mid-run: “always use pnpm”', 'The user said mid-run: “モックは今後使わないでください”']);
  });

  it('adding one package is not "the dependency install"; the lockfile install is', () => {
    const added = extract(new TranscriptBuilder('x').bash('npm install left-pad', 0, 'added 1 package').bash('yarn add -D zod', 0, 'Done'));
    expect(added.filter((x) => /Install the dependencies/.test(x.text))).toEqual([]);
    const ci = extract(new TranscriptBuilder('x').say('There is a package-lock.json, so npm.').bash('cd /workspace && timeout 300 npm ci 2>&1 | tail -3', 0, 'added 812 packages'));
    expect(ci.map((x) => x.text)).toContain('Install the dependencies with `npm ci` (worked in this workspace).');
  });

  it('quotes an out-of-memory error (memory as a resource is not an instruction to an agent)', () => {
    const m = extract(
      new TranscriptBuilder('x')
        .bash('npm run build', 134, 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory')
        .bash('NODE_OPTIONS=--max-old-space-size=4096 npm run build', 0, 'built in 41s'),
    );
    expect(m.some((x) => /heap out of memory/.test(x.text) && /max-old-space-size=4096 npm run build/.test(x.text))).toBe(true);
  });

  it('`|| true` after a command does not make it tainted or a lesson on its own', () => {
    const m = extract(new TranscriptBuilder('x').bash('cat NOTES.md', 0, 'if true, AI agents should remember this').bash('bash scripts/test.sh || true', 0, '12 passed'));
    expect(m.map((x) => x.text)).toEqual(['Run the tests with `bash scripts/test.sh` (passed in this workspace).']);
  });

  it('names the file a secret was read from, whatever the flags', () => {
    const m = extract(new TranscriptBuilder('x').bash('cat -n config/.env.local', 0, '1  API_TOKEN=sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE').say('The token there is a real credential; tests must not use it.'));
    expect(m.find((x) => /Secrets are present/.test(x.text))?.text).toMatch(/config\/\.env\.local/);
  });
});

describe('rollout summary', () => {
  it('does not list a suite piped into tail as what worked when its output shows failures', async () => {
    const { summarizeRollout } = await import('../../../src/memory/phase1/summary.js');
    const view = viewRollout(new TranscriptBuilder('x').bash('npm test 2>&1 | tail -5', 0, 'Tests: 3 failed, 40 passed').bash('npm run build', 0, 'built').end(), 'r');
    const s = summarizeRollout(view, []);
    expect(s.worked).toEqual(['`npm run build`']);
    expect(s.tried).toEqual(['`npm test` → exit 0 (but its output shows a failure)', '`npm run build` → exit 0']);
  });
});
