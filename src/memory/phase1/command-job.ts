import type { Segment } from './commands.js';

/** A check that several tools and wrappers do: linting, formatting, type checking. */
export type CommandJob = 'lint' | 'format' | 'typecheck';

const TOOL_JOBS: Record<string, CommandJob> = {
  eslint: 'lint',
  oxlint: 'lint',
  tslint: 'lint',
  standard: 'lint',
  xo: 'lint',
  stylelint: 'lint',
  flake8: 'lint',
  pylint: 'lint',
  pyflakes: 'lint',
  'golangci-lint': 'lint',
  staticcheck: 'lint',
  rubocop: 'lint',
  shellcheck: 'lint',
  hadolint: 'lint',
  markdownlint: 'lint',
  yamllint: 'lint',
  ktlint: 'lint',
  detekt: 'lint',
  prettier: 'format',
  black: 'format',
  isort: 'format',
  gofmt: 'format',
  goimports: 'format',
  rustfmt: 'format',
  'clang-format': 'format',
  shfmt: 'format',
  swiftlint: 'lint',
  phpcs: 'lint',
  'php-cs-fixer': 'format',
  credo: 'lint',
  'swift-format': 'format',
  scalafmt: 'format',
  mypy: 'typecheck',
  pyright: 'typecheck',
  'vue-tsc': 'typecheck',
};

/** The job a script or make target name says: `lint`, `lint:fix`, `check-format`, `typecheck` … */
function jobOfName(name: string): CommandJob | undefined {
  const n = name.toLowerCase();
  if (/^(lint|eslint|stylelint)([:_-]|$)|[:_-]lint$/.test(n)) return 'lint';
  if (/^(fmt|format|prettier)([:_-]|$)|^check[:_-](fmt|format)$|[:_-](fmt|format)$/.test(n)) return 'format';
  if (/^(typecheck|type-check|types|tsc|check[:_-]types|mypy)([:_-]|$)/.test(n)) return 'typecheck';
  return undefined;
}

/** Gradle and Maven tasks of the usual plugins: `ktlintFormat`, `spotlessCheck`, `spotless:apply`, `detekt`. */
function jobOfBuildTask(args: string[]): CommandJob | undefined {
  for (const a of args.filter((x) => !x.startsWith('-'))) {
    if (/^(ktlint(Check|Format)|spotless(Check|Apply)|spotless:(check|apply)|fmt:(check|format)|scalafmt\w*)$/.test(a)) return 'format';
    if (/^(detekt|checkstyle\w*|pmd\w*|spotbugs\w*|checkstyle:check|pmd:check)$/.test(a)) return 'lint';
  }
  return undefined;
}

/**
 * The check a command segment runs, whatever runs it: the tool itself (`eslint .`, `npx eslint src`,
 * `ruff check`, `cargo clippy`, `tsc --noEmit`), a package script (`npm run lint`, `pnpm lint:ci`,
 * `yarn typecheck`) or a make target (`make lint`). Undefined for anything else. Two segments with the same job
 * do the same work (issue 12: a failing `eslint` and a passing `npm run lint` are a failure and its fix).
 */
export function jobOf(seg: Pick<Segment, 'program' | 'args'>): CommandJob | undefined {
  const { program, args } = seg;
  const first = args.find((a) => !a.startsWith('-')) ?? '';
  if (TOOL_JOBS[program]) return TOOL_JOBS[program];
  switch (program) {
    case 'ruff':
      return first === 'format' ? 'format' : 'lint';
    case 'biome':
      return first === 'format' ? 'format' : first === 'lint' || first === 'check' || first === 'ci' ? 'lint' : undefined;
    case 'cargo':
      return first === 'clippy' ? 'lint' : first === 'fmt' ? 'format' : undefined;
    case 'go':
      return first === 'vet' ? 'lint' : first === 'fmt' ? 'format' : undefined;
    case 'dotnet':
      return first === 'format' ? 'format' : undefined;
    case 'mix':
      return first === 'format' ? 'format' : first === 'credo' ? 'lint' : undefined;
    case 'gradle':
    case './gradlew':
    case 'gradlew':
    case 'mvn':
    case './mvnw':
    case 'mvnw':
      return jobOfBuildTask(args);
    case 'tsc':
      return args.includes('--noEmit') ? 'typecheck' : undefined;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      return jobOfName(/^run(-script)?$/.test(first) ? (args.filter((a) => !a.startsWith('-'))[1] ?? '') : first);
    case 'make':
    case 'gmake':
    case 'just':
    case 'task':
      return jobOfName(first);
    default:
      return undefined;
  }
}

/**
 * The segment only checks (reports, exits non-zero) rather than rewrites files: no `--fix`/`--write`/`-w`, no
 * `fix`/`write` in a script or target name, and a formatter only with its check flag (`prettier --check`,
 * `black --check`, `gofmt -l`, `cargo fmt --check`, `npm run format:check`). A fixer that "passes" after a check
 * failed changed the code: that is a dev loop, not another way to run the same check.
 */
export function checksOnly(seg: Pick<Segment, 'program' | 'args'>): boolean {
  const { args } = seg;
  if (args.some((a) => /^--(fix|write|apply|fix-only|unsafe-fixes|autocorrect|autocorrect-all)$|^-w$/.test(a))) return false;
  // `rubocop -a`, `./gradlew ktlintFormat`, `spotless:apply`: the fixer spelled as a flag or a task.
  if (seg.program === 'rubocop' && args.some((a) => /^-[aA]$/.test(a))) return false;
  if (args.some((a) => /^(ktlintFormat|spotlessApply|spotless:apply|fmt:format)$/.test(a))) return false;
  if (args.some((a) => /^(ktlintCheck|spotlessCheck|spotless:check|fmt:check)$/.test(a))) return true;
  if (args.some((a) => !a.startsWith('-') && /(^|[:_-])(fix|write)([:_-]|$)/i.test(a))) return false;
  if (jobOf(seg) !== 'format') return true;
  return args.some((a) => /^(--check|--diff|-l|--list-different|--dry-run|-n|--verify-no-changes|--check-formatted|--lint)$/.test(a) || /(^|[:_-])check([:_-]|$)/.test(a));
}

const IN_PLACE = /^(-i|--in-place|--inplace|-w|--write|--fix|--apply)$/;
/** Flags by which a linter rewrites what it reports (`--fix`, `--autocorrect`; RuboCop-style `-a`/`-A`). */
const AUTOFIX = /^(--fix|--fix-only|--unsafe-fixes|--autocorrect|--auto-correct|--autocorrect-all|--auto-correct-all)$/;
const RUBOCOP_LIKE = /^(rubocop|pdk|standardrb|standard|haml-lint|erblint|erb_lint)$/;

/**
 * `after` is `check` with one of its flags traded for an in-place flag (`jsonnetfmt --test f` → `jsonnetfmt -i f`,
 * `tool --verify x` → `tool --write x`), whatever the tool: it rewrote what the check complained about, so the code
 * changed. An option only added (`pip install -i URL x`, `cabal build -w ghc-9.6.4`) is not a trade.
 */
export function rewritesWhatItChecked(check: Pick<Segment, 'program' | 'args'>, after: Pick<Segment, 'program' | 'args'>): boolean {
  // A fixer flag only added (`pdk validate` → `pdk validate -a`, `stylelint x` → `stylelint x --fix`): the same.
  if (check.program === after.program && after.args.some((x) => AUTOFIX.test(x) || (/^-[aA]$/.test(x) && RUBOCOP_LIKE.test(after.program))) && !check.args.some((x) => AUTOFIX.test(x) || /^-[aA]$/.test(x))) return true;
  return (
    check.program === after.program &&
    after.args.some((x) => IN_PLACE.test(x)) &&
    !check.args.some((x) => IN_PLACE.test(x)) &&
    check.args.some((x) => x.startsWith('-') && !after.args.includes(x))
  );
}
