/** What a command segment does. `env` = changes the shell's environment (export, source, corepack…). */
export type CommandCategory = 'test' | 'build' | 'install' | 'system' | 'generate' | 'env' | 'inspect' | 'vcs' | 'other';

const TEST_SCRIPT = /^test(?::|$)|^(?:unit|e2e|check)(?::|$)/;

/**
 * The category of one command segment from its program, its arguments (`args`: non-flag words) and the
 * whole segment (`core`): package-manager scripts named test*, `make test`, `pytest` … are tests; `npm ci`,
 * `pip install -r` … install dependencies; `apt-get install` … install system packages.
 */
export function categoryOf(program: string, args: string[], core: string): CommandCategory {
  const first = args[0] ?? '';
  const script = first === 'run' ? (args[1] ?? '') : first;
  switch (program) {
    case 'pytest':
    case 'tox':
    case 'nox':
    case 'ctest':
    case 'jest':
    case 'vitest':
    case 'mocha':
    case 'rspec':
    case 'phpunit':
      return 'test';
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      if (TEST_SCRIPT.test(script) || script === 't') return 'test';
      if (/^(ci|install|i|add|clean-install|install-clean)$/.test(first) || (program === 'yarn' && args.length === 0)) return 'install';
      if (/^(build|compile)(:|$)/.test(script)) return 'build';
      if (/^(gen|generate|codegen)(:|$)/.test(script)) return 'generate';
      return 'other';
    case 'npx':
    case 'pnpx':
      return /^(vitest|jest|mocha|playwright)$/.test(first) ? 'test' : /^(tsc|vite|webpack|esbuild)$/.test(first) ? 'build' : 'other';
    case 'python':
    case 'python3':
      if (/-m\s+(pytest|unittest|tox|nox)\b/.test(core)) return 'test';
      if (/-m\s+pip\s+install\b/.test(core)) return 'install';
      if (/-m\s+venv\b/.test(core)) return 'env';
      return 'other';
    case 'pip':
    case 'pip3':
      return first === 'install' ? 'install' : 'other';
    case 'poetry':
    case 'uv':
    case 'pipenv':
    case 'bundle':
    case 'composer':
      return /^(install|sync|add|pip)$/.test(first) ? 'install' : first === 'run' && /test/.test(args[1] ?? '') ? 'test' : 'other';
    case 'go':
      return first === 'test' ? 'test' : first === 'build' || first === 'vet' ? 'build' : first === 'generate' ? 'generate' : first === 'mod' || first === 'get' || first === 'install' ? 'install' : 'other';
    case 'cargo':
      return first === 'test' || first === 'nextest' ? 'test' : first === 'build' || first === 'check' ? 'build' : first === 'fetch' || first === 'install' ? 'install' : 'other';
    case 'make':
    case 'ninja':
    case 'gmake':
      if (/^(test|tests|check|unit|integration)$/.test(first)) return 'test';
      if (/^(gen|generate|codegen|proto|protos)$/.test(first)) return 'generate';
      if (/^(deps|install|setup|bootstrap)$/.test(first)) return 'install';
      if (/^(lint|fmt|format|vet)$/.test(first)) return 'other';
      return 'build';
    case 'cmake':
      return args.includes('--build') || core.includes('--build') ? 'build' : 'other';
    case 'mvn':
    case 'gradle':
    case 'gradlew':
      return /\btest\b/.test(core) ? 'test' : 'build';
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
      if (/^(test|check|run-tests?)(\.sh)?$/.test(program) || /(^|\/)(test|check)[\w-]*\.sh$/.test(core.split(/\s/)[0] ?? '')) return 'test';
      if (/^(build|compile)(\.sh)?$/.test(program)) return 'build';
      return 'other';
  }
}

