import { toolCategory } from './command-tools.js';

/** What a command segment does. `env` = changes the shell's environment (export, source, corepack, `cd app`…); `shell` = plumbing (`set`, `true`, `cd` to the root). */
export type CommandCategory = 'test' | 'build' | 'install' | 'system' | 'generate' | 'env' | 'inspect' | 'vcs' | 'shell' | 'other';

const TEST_SCRIPT = /^test(?::|$)|^(?:unit|e2e|check|spec)(?::|$)|^test[-_:]/;
const TEST_TOOLS = /^(vitest|jest|mocha|ava|tap|playwright|cypress|karma|jasmine|uvu|c8|nyc)$/;

/** Options that take a value, per program: their value is not a subcommand (`make -C build test`, `npm --prefix app test`). */
const VALUED: Record<string, RegExp> = {
  make: /^-[CfIjloW]$/,
  gmake: /^-[CfIjloW]$/,
  ninja: /^-[Cfjkl]$/,
  npm: /^--(prefix|workspace|loglevel)$|^-w$/,
  pnpm: /^--(dir|filter|workspace-root|reporter|loglevel)$|^-[CF]$/,
  yarn: /^--(cwd)$/,
  bun: /^--(cwd|filter)$/,
  go: /^-C$/,
  git: /^-C$|^-c$/,
  mvn: /^-[fpPlTDs]$|^--(file|projects|settings)$/,
  gradle: /^-[pc]$|^--(project-dir|settings-file)$/,
  gradlew: /^-[pc]$|^--(project-dir|settings-file)$/,
  cmake: /^-[SBGDj]$/,
  ctest: /^--test-dir$|^-[jCLEIR]$|^--(label-regex|parallel|build-config|tests-regex|exclude-regex)$/,
  tox: /^-[ec]$/,
  dotnet: /^--(project|configuration)$|^-[pc]$/,
  cargo: /^-[pj]$|^--(package|manifest-path|jobs|features)$/,
};

/** The non-option words of a segment's arguments, option values and `VAR=val` (make) left out; `yarn workspace x test` → `test`. */
export function positionalArgs(program: string, args: string[]): string[] {
  const valued = VALUED[program === 'mvnw' ? 'mvn' : program];
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    if (a === '--build' && program === 'cmake') {
      out.push(a);
      continue;
    }
    if (a.startsWith('-') || (a.startsWith('+') && program === 'cargo')) {
      if (valued && !a.includes('=') && valued.test(a)) i += 1;
      continue;
    }
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a) && /make$/.test(program)) continue;
    out.push(a);
  }
  if (program === 'yarn' && out[0] === 'workspace') return out.slice(2);
  return out;
}

/** The directory `make -C DIR` / `--directory=DIR` / `ninja -C DIR` runs in, if one is given (`words`: the segment's core split on blanks). */
function directoryOf(words: string[]): string | undefined {
  for (let i = 0; i < words.length; i += 1) {
    const a = words[i]!;
    if (a === '-C' || a === '--directory') return words[i + 1];
    if (a.startsWith('--directory=')) return a.slice('--directory='.length);
    if (/^-C./.test(a)) return a.slice(2);
  }
  return undefined;
}

/** A script's category from its file name's words: `scripts/check.sh`, `run_tests.sh`, `script/cibuild`, `bin/setup`. */
function scriptCategory(path: string, first: string): CommandCategory {
  const name = (path.split('/').pop() ?? path).replace(/\.[a-z]+$/i, '').toLowerCase();
  const words = name.split(/[-_.]+/);
  const has = (re: RegExp) => words.some((w) => re.test(w)) || re.test(name);
  if (name === 'manage' && first === 'test') return 'test';
  if (has(/^(test|tests|testing|check|checks|ci|cibuild|verify|spec|specs|runtests|unittests?|pytest|e2e|integration|precommit)$/)) return 'test';
  if (has(/^(build|compile|dist|bundle|make)$/)) return 'build';
  if (has(/^(bootstrap|setup|install|deps|dependencies|vendor)$/)) return 'install';
  if (has(/^(gen|generate|codegen|proto|protos)$/)) return 'generate';
  if (/^(test|tests|check)$/.test(first)) return 'test';
  if (/^(build|dist)$/.test(first)) return 'build';
  return 'other';
}

/**
 * The category of one command segment from its program, its positional arguments (`args`) and the
 * segment from the program on (`core`): package-manager scripts named test*, `make test`, `pytest`,
 * scripts named like `check.sh` … are tests; `npm ci`, `pip install -r` … install dependencies;
 * `apt-get install` … install system packages. `script`: the program is a file run by path or interpreter.
 */
export function categoryOf(program: string, args: string[], core: string, script = false): CommandCategory {
  // A script from outside the workspace (`/tmp/ruby-build/install.sh`) installs a tool, not the project's dependencies.
  // …unless it is a known tool by its full path (`/opt/android-sdk/cmdline-tools/latest/bin/sdkmanager --licenses`).
  if (script) return /^[/~$]/.test(program) ? (toolCategory(program.replace(/^.*\//, ''), args, core) ?? 'other') : scriptCategory(program, args[0] ?? '');
  const first = args[0] ?? '';
  const script2 = /^run(-script)?$/.test(first) ? (args[1] ?? '') : first;
  switch (program.replace(/^(python|pip)[\d.]+$/, '$1')) {
    case 'pytest':
    case 'py.test':
    case 'ava':
    case 'tap':
    case 'karma':
    case 'pest':
    case 'tox':
    case 'nox':
    case 'ctest':
    case 'jest':
    case 'vitest':
    case 'mocha':
    case 'rspec':
    case 'phpunit':
      return 'test';
    case 'terraform':
    case 'tofu':
    case 'terragrunt':
      // `init` fetches modules and providers (the install); `validate`/`plan`/`fmt -check` check the code.
      return first === 'init' ? 'install' : /^(validate|plan|test)$/.test(first) || (first === 'fmt' && args.includes('-check')) ? 'test' : 'other';
    case 'ansible-galaxy':
      return args.includes('install') ? 'install' : 'other';
    case 'ansible-playbook':
    case 'ansible-lint':
      return args.includes('--syntax-check') || program === 'ansible-lint' ? 'test' : 'other';
    case 'helm':
      return first === 'dependency' || first === 'dep' ? 'install' : first === 'lint' || first === 'template' ? 'test' : 'other';
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      if (TEST_SCRIPT.test(script2) || script2 === 't' || script2 === 'tst' || TEST_TOOLS.test(script2)) return 'test';
      if (/^(ci|install|i|add|clean-install|install-clean)$/.test(first) || (program === 'yarn' && args.length === 0)) return 'install';
      if (/^(build|compile)(:|$)/.test(script2)) return 'build';
      if (/^(gen|generate|codegen)(:|$)/.test(script2)) return 'generate';
      return 'other';
    case 'npx':
    case 'pnpx':
      return TEST_TOOLS.test(first) ? 'test' : /^(tsc|vite|webpack|esbuild)$/.test(first) ? 'build' : 'other';
    case 'playwright':
    case 'cypress':
      return first === 'test' || first === 'run' ? 'test' : first === 'install' ? 'install' : 'other';
    case 'vite':
    case 'webpack':
    case 'esbuild':
    case 'rollup':
      return 'build';
    case 'python':
    case 'python3':
      if (/-m\s+(pytest|unittest|tox|nox|nose2?)\b/.test(core)) return 'test';
      if (/-m\s+build\b/.test(core)) return 'build';
      if (/-m\s+pip\s+install\b/.test(core)) return 'install';
      if (/-m\s+venv\b/.test(core)) return 'env';
      return toolCategory(program, args, core) ?? 'other';
    case 'pip':
    case 'pip3':
      return first === 'install' ? 'install' : 'other';
    case 'poetry':
    case 'uv':
    case 'pipenv':
    case 'bundle':
    case 'composer':
      // `uv python install 3.12` installs an interpreter: the environment, like `pyenv install`.
      if (program === 'uv' && first === 'python' && args[1] === 'install') return 'env';
      return /^(install|sync|add|pip)$/.test(first) ? 'install' : first === 'run' && /test/.test(args[1] ?? '') ? 'test' : 'other';
    case 'go':
      return first === 'test' ? 'test' : first === 'build' || first === 'vet' ? 'build' : first === 'generate' ? 'generate' : first === 'mod' || first === 'get' || first === 'install' ? 'install' : 'other';
    case 'cargo':
      return first === 'test' || first === 'nextest' ? 'test' : first === 'build' || first === 'check' ? 'build' : first === 'fetch' || first === 'install' ? 'install' : 'other';
    case 'make':
    case 'ninja':
    case 'gmake':
      if (/^(test|tests|check|verify|unit|integration|e2e)$|^test[-_]/.test(first)) return 'test';
      // The default goal of a test folder's own Makefile (`make -C test/host`, `make --directory=tests/unit`) runs its tests.
      if ((first === '' || first === 'all' || first === 'run') && /^(\.\/)?(test|tests|spec|specs|t)(\/|$)/.test(directoryOf(core.split(/\s+/)) ?? '')) return 'test';
      if (/^(gen|generate|codegen|proto|protos)$/.test(first)) return 'generate';
      if (/^(deps|install|setup|bootstrap)$/.test(first)) return 'install';
      if (/^(lint|fmt|format|vet|clean|distclean|run|serve|dev|start|docker|help|release|publish|deploy)$/.test(first)) return 'other';
      return 'build';
    case 'cmake':
      return args.includes('--build') || core.includes('--build') ? 'build' : 'other';
    case 'mvn':
    case 'mvnw':
      return args.some((a) => /^(test|verify|integration-test|surefire:test)$/.test(a)) ? 'test' : args.some((a) => /^dependency:/.test(a)) ? 'install' : 'build';
    case 'gradle':
    case 'gradlew':
      return args.some((a) => /(^|:)(test|check|\w+Test)$/.test(a)) ? 'test' : 'build';
    case 'dotnet':
    case 'swift':
    case 'mix':
    case 'deno':
    case 'sbt':
    case 'lein':
    case 'bazel':
    case 'bazelisk':
    case 'meson':
    case 'zig':
    case 'flutter':
    case 'dart':
      if (/^(test|tests)$/.test(first)) return 'test';
      if (/^(build|compile|publish)$/.test(first)) return 'build';
      if (/^(restore|deps\.get|pub|install|get|fetch)$/.test(first)) return 'install';
      return 'other';
    case 'rake':
      return /^(test|spec)(:|$)/.test(first) || first === '' ? 'test' : 'other';
    case 'rails':
    case 'artisan':
      return first === 'test' || first === 'spec' ? 'test' : 'other';
    case 'tsc':
    case 'gcc':
    case 'g++':
    case 'clang':
    case 'javac':
      return 'build';
    case 'apt':
    case 'apt-get':
    case 'apk':
    case 'dnf':
    case 'yum':
    case 'brew':
    case 'pacman':
    case 'zypper':
      return /^(install|add|update|upgrade|-S|-Sy)$/.test(first) || /\s-S/.test(core) ? 'system' : 'inspect';
    case 'buf':
    case 'protoc':
      return 'generate';
    case 'export':
    case 'source':
    case '.':
    // `eval $(opam env)`, `eval "$(pyenv init -)"`: runs what a tool printed in this shell, to set its environment.
    case 'eval':
    case 'corepack':
    case 'nvm':
    case 'pyenv':
    case 'rustup':
    case 'conda':
    case 'ulimit':
    case 'alias':
      return 'env';
    case 'git':
      return 'vcs';
    case 'ls':
    case 'cat':
    case 'head':
    case 'tail':
    case 'grep':
    case 'rg':
    case 'find':
    case 'sed':
    case 'awk':
    case 'echo':
    case 'printf':
    case 'which':
    case 'type':
    case 'command':
    case 'hash':
    case 'pwd':
    case 'wc':
    case 'sort':
    case 'uniq':
    case 'tee':
    case 'free':
    case 'df':
    case 'du':
    case 'env':
    case 'printenv':
    case 'stat':
    case 'file':
    case 'tree':
    case 'diff':
    case 'nproc':
    case 'uname':
    case 'id':
    case 'whoami':
    case 'ps':
    case 'jq':
    case 'test':
    case '[':
    case '[[':
      return 'inspect';
    default:
      return /^(set|true|false|:|exit|return|sleep|wait|trap|shopt|popd|unset|local|read)$/.test(program) ? 'shell' : toolCategory(program, args, core) ?? 'other';
  }
}

