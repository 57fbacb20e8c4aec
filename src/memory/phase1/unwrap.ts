/**
 * Finds the program a segment really runs, through the wrappers an agent puts in front of it:
 * `VAR=1`, `sudo -E`, `env -u X`, `time -p`, `timeout -s KILL 60`, `nice -n 5`, `nohup`, `xvfb-run -a`,
 * `cross-env`; interpreters running a file (`bash -e scripts/check.sh`, `python3 tools/run_tests.py`);
 * runners (`npx -y vitest`, `pnpm exec jest`, `bundle exec rspec`, `uv run pytest`, `coverage run -m pytest`) and
 * development environments (`nix develop -c`, `nix-shell --run`, `mise exec --`, `devbox run`: `environmentRunner`);
 * and `bash -c '…'`, whose string is handed back to be split as a command of its own.
 */

/** Known programs that are not scripts even when called by a path (`node_modules/.bin/vitest`, `./gradlew`). */
const TOOLS = /^(vitest|jest|mocha|tsc|eslint|prettier|playwright|phpunit|pest|rspec|rake|rails|pytest|py\.test|gradlew|mvnw|python[\d.]*|node|npm|npx|pnpm|yarn|bun|go|cargo|make|cmake|ctest|pip3?|uv|poetry)$/;
const SHELLS = /^(bash|sh|zsh|dash|ksh)$/;
const INTERPRETERS = /^(python[\d.]*|node|ruby|perl|php|deno|tsx|ts-node)$/;
const SCRIPT_FILE = /\.(sh|bash|py|js|mjs|cjs|ts|rb|pl|php)$/;

/** Wrapper → its options that take a value (`-u user`). Words up to the wrapped command are skipped. */
const WRAPPERS: Record<string, RegExp> = {
  sudo: /^-[ugCDhpUrtT]$|^--(user|group|chdir|host|prompt)$/,
  doas: /^-u$/,
  env: /^-[uCS]$|^--(unset|chdir)$/,
  time: /^-[fo]$|^--(format|output)$/,
  nice: /^-n$|^--adjustment$/,
  ionice: /^-[cnp]$/,
  nohup: /^$/,
  command: /^$/,
  exec: /^-a$/,
  builtin: /^$/,
  stdbuf: /^-[ioe]$/,
  unbuffer: /^$/,
  chronic: /^$/,
  'xvfb-run': /^-[sfnwe]$|^--(server-args|auth-file|server-num)$/,
  'cross-env': /^$/,
  caffeinate: /^$/,
};
const NOISE = new Set(['time', 'nice', 'ionice', 'nohup', 'command', 'exec', 'builtin', 'stdbuf', 'unbuffer', 'chronic', 'caffeinate']);
const KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', 'fi', 'done']);

/** Runner → how many words name it (`bundle exec` = 2) and its options that take a value. */
const RUNNERS: Array<{ match: (w: string[]) => number; valued: RegExp }> = [
  { match: (w) => (/^(npx|pnpx|bunx)$/.test(w[0] ?? '') ? 1 : 0), valued: /^-p$|^--package$/ },
  { match: (w) => (/^(pnpm|yarn|npm|bun)$/.test(w[0] ?? '') && /^(exec|dlx|x)$/.test(w[1] ?? '') ? 2 : 0), valued: /^-[cC]$|^--(package|filter|dir)$/ },
  { match: (w) => (w[0] === 'bundle' && w[1] === 'exec' ? 2 : 0), valued: /^$/ },
  { match: (w) => (/^(uv|poetry|pipenv|pdm|rye|hatch)$/.test(w[0] ?? '') && w[1] === 'run' ? 2 : 0), valued: /^--(with|python|extra|group|project|directory|env-file|package|env)$|^-[pe]$/ },
  { match: (w) => (/^(conda|mamba|micromamba)$/.test(w[0] ?? '') && w[1] === 'run' ? 2 : 0), valued: /^-[np]$|^--(name|prefix)$/ },
  // `carton exec -- prove -lr t`, `opam exec -- dune test`, `stack exec -- hspec`: the `--` ends the runner's options.
  { match: (w) => (/^(carton|opam|stack|cabal)$/.test(w[0] ?? '') && w[1] === 'exec' ? 2 : 0), valued: /^--(switch|package)$/ },
];

/**
 * Runners that enter a development environment and run one command in it: `nix develop .#ci -c <cmd>`,
 * `nix shell nixpkgs#x --command <cmd>`, `mise exec node@20 -- <cmd>`, `dotenv -e .env -- <cmd>`, `devbox run
 * <cmd>`, `pixi run <cmd>`, `asdf exec <cmd>`, `direnv exec <dir> <cmd>`. Returns where the command starts in
 * `w`, or undefined when `w` is none of them.
 */
function environmentRunner(w: string[]): number | undefined {
  const after = (marker: RegExp) => {
    const i = w.findIndex((x, k) => k > 0 && marker.test(x));
    return i > 0 ? i + 1 : w.length;
  };
  // Global options may come first: `nix --extra-experimental-features 'nix-command flakes' develop -c …`.
  if (w[0] === 'nix') {
    const sub = w.findIndex((x, k) => k > 0 && /^(develop|shell)$/.test(x));
    if (sub > 0 && sub <= 5 && (sub === 1 || w[1]!.startsWith('-'))) return after(/^(-c|--command)$/);
  }
  if (/^(mise|rtx)$/.test(w[0] ?? '') && /^(exec|x)$/.test(w[1] ?? '')) return after(/^--$/);
  if (/^(dotenv|dotenvx|flox)$/.test(w[0] ?? '') && w.includes('--')) return after(/^--$/);
  if (/^(devbox|pixi)$/.test(w[0] ?? '') && w[1] === 'run') return skipOptions(w, 2, /^-c$|^--(config|environment|manifest-path)$|^-e$/);
  if (w[0] === 'asdf' && w[1] === 'exec') return 2;
  if (w[0] === 'direnv' && w[1] === 'exec' && w[2] !== undefined) return 3;
  return undefined;
}

export interface Unwrapped {
  /** Index in the segment's words where the command starts (after wrappers; runners included). */
  start: number;
  /** Program and arguments: runner and interpreter removed, a script's path normalised (`./a/b.sh` → `a/b.sh`). */
  words: string[];
  /** The normalised path when the command is a script run by path or by an interpreter. */
  script?: string;
  sudo: boolean;
  /** `VAR=value` words in front of the command (they change what it does: `CI=1`, `NODE_OPTIONS=…`). */
  assignments: string[];
  /** Indices of words that only time or detach the command (`time -p`, `timeout 60`, `nohup`): left out when it is shown. */
  noise: number[];
  /** `bash -c '<inner>'`: the command string to split instead. */
  inner?: string;
}

/** See the module comment. `words` are shell words with quotes removed. */
export function unwrap(words: string[]): Unwrapped {
  let k = 0;
  let sudo = false;
  let wrapperAt: number | undefined;
  const noise: number[] = [];
  const assignments: string[] = [];
  const mark = (from: number, to: number) => {
    for (let i = from; i < to; i += 1) noise.push(i);
  };
  for (;;) {
    const w = words[k];
    if (w === undefined) break;
    if (KEYWORDS.has(w)) {
      mark(k, k + 1);
      k += 1;
      continue;
    }
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      assignments.push(w);
      k += 1;
      continue;
    }
    if (w === 'timeout') {
      const from = k;
      k = skipOptions(words, k + 1, /^-[sk]$|^--(signal|kill-after)$/);
      if (/^\d+(\.\d+)?[smhd]?$/.test(words[k] ?? '')) k += 1;
      mark(from, k);
      continue;
    }
    const valued = WRAPPERS[w];
    if (!valued) break;
    // `command -v x` / `command -V x` look a program up; they do not run it.
    if (w === 'command' && /^-[vV]$/.test(words[k + 1] ?? '')) break;
    if (w === 'sudo' || w === 'doas') sudo = true;
    wrapperAt = k;
    const from = k;
    k = skipOptions(words, k + 1, valued);
    if (w === 'stdbuf' || w === 'nice') while (/^-/.test(words[k] ?? '')) k += 1;
    if (NOISE.has(w)) mark(from, k);
  }
  // `env`, `time` alone wrap nothing: they are the command (`env | sort` prints the environment).
  if (k >= words.length && wrapperAt !== undefined) {
    k = wrapperAt;
    noise.length = 0;
  }
  const start = k;
  let rest = words.slice(k);
  for (let guard = 0; guard < 3; guard += 1) {
    // `nix-shell --run '<cmd>'`: the command string to split instead.
    if (/^nix-shell$/.test(rest[0] ?? '')) {
      const r = rest.indexOf('--run');
      if (r > 0 && rest[r + 1] !== undefined) return { start, words: rest, sudo, noise, assignments, inner: rest[r + 1] };
    }
    const inEnv = environmentRunner(rest);
    if (inEnv !== undefined) {
      if (inEnv >= rest.length) break;
      rest = rest.slice(inEnv);
      continue;
    }
    const runner = RUNNERS.find((r) => r.match(rest) > 0);
    if (!runner) break;
    const after = skipOptions(rest, runner.match(rest), runner.valued);
    if (after >= rest.length) break;
    rest = rest.slice(after);
  }
  if (rest[0] === 'coverage' && rest[1] === 'run') {
    const m = rest.indexOf('-m');
    rest = m > 0 ? ['python', '-m', ...rest.slice(m + 1)] : ['python', ...rest.slice(skipOptions(rest, 2, /^--(rcfile|source|include|omit|data-file)$/))];
  }
  const program = (rest[0] ?? '').replace(/^.*\//, '');
  // `pwsh -NoProfile -c 'Install-Module …; Invoke-Build Test'`: statements split on `;` and `|` as a shell's are.
  if (/^(pwsh|powershell)(\.exe)?$/i.test(program)) {
    const c = rest.findIndex((a, i) => i > 0 && /^-(c|command)$/i.test(a));
    if (c > 0 && rest[c + 1] !== undefined) return { start, words: rest, sudo, noise, assignments, inner: rest.slice(c + 1).join(' ') };
  }
  if (SHELLS.test(program)) {
    const c = rest.findIndex((a, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(a));
    if (c > 0 && rest[c + 1] !== undefined) return { start, words: rest, sudo, noise, assignments, inner: rest[c + 1] };
    const i = skipOptions(rest, 1, /^[-+][a-z]*o$|^--rcfile$|^--init-file$/);
    if (rest[i] !== undefined) return script(start, rest.slice(i), sudo, noise, assignments);
    return { start, words: rest, sudo, noise, assignments };
  }
  if (INTERPRETERS.test(program)) {
    const i = skipOptions(rest, 1, /^-[WXQ]$|^--(require|import|loader)$|^-r$/);
    const file = rest[i];
    const byFlag = rest.slice(1, i).some((a) => /^-[mce]$|^--(eval|print)$|^-p$/.test(a));
    // The first word after the options is the file it runs, with or without an extension (`php artisan`,
    // `node build`): that file, not the interpreter, is what the command is.
    if (file && !byFlag && (SCRIPT_FILE.test(file) || file.includes('/') || /^[\w][\w.-]*$/.test(file))) return script(start, rest.slice(i), sudo, noise, assignments);
    return { start, words: rest, sudo, noise, assignments };
  }
  const first = rest[0] ?? '';
  if ((first.includes('/') && !TOOLS.test(program)) || (SCRIPT_FILE.test(first) && !first.includes('='))) return script(start, rest, sudo, noise, assignments);
  if (first.includes('/')) return { start, words: [program, ...rest.slice(1)], sudo, noise, assignments };
  return { start, words: rest, sudo, noise, assignments };
}

function script(start: number, words: string[], sudo: boolean, noise: number[], assignments: string[]): Unwrapped {
  const path = words[0]!
    .replace(/^(\.\/)+/, '')
    .replace(/^\/workspace\//, '')
    .replace(/\/\.\//g, '/');
  return { start, words: [path, ...words.slice(1)], script: path, sudo, noise, assignments };
}

/** Index of the first word from `k` that is not an option (or the value of one matching `valued`). */
function skipOptions(words: string[], k: number, valued: RegExp): number {
  let i = k;
  while (i < words.length && words[i]!.startsWith('-') && words[i] !== '-') {
    const w = words[i]!;
    i += 1;
    if (w === '--') break;
    if (!w.includes('=') && valued.test(w)) i += 1;
  }
  return i;
}
