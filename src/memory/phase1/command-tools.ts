import type { CommandCategory } from './command-category.js';

/**
 * Categories of the tools `command-category.ts` does not name one by one: build tools and task runners whose
 * first word says the job (`stack test`, `forge build`, `nimble install`, `just check`, `nx run web:test`), and
 * interpreters given code to run (`julia -e 'using Pkg; Pkg.test()'`, `Rscript -e 'devtools::test()'`,
 * `octave --eval runtests`). Issue 12: a rule about "the test command" must know a test command in any
 * ecosystem, not only the ones its fixtures used.
 */

/** Tools whose subcommand (first positional word, or the target after `run`) is the job. */
const BY_SUBCOMMAND = new Set([
  'stack', 'cabal', 'dune', 'nimble', 'crystal', 'shards', 'gleam', 'rebar3', 'erlang.mk', 'forge', 'hardhat', 'truffle',
  'anchor', 'pio', 'platformio', 'alr', 'fpm', 'elm', 'spago', 'opam', 'luarocks', 'raco', 'dub', 'v', 'odin', 'scarb',
  'mill', 'bloop', 'bb', 'boot', 'pants', 'buck', 'buck2', 'plz', 'nx', 'turbo', 'lerna', 'rush', 'moon', 'xcodebuild',
  'just', 'task', 'mage', 'invoke', 'inv', 'earthly', 'carton', 'cpanm', 'cpm', 'gem', 'pub', 'fvm', 'tuist', 'melos',
]);

/** Task runners: `check` and `lint` there are the repository's checks, as in `make check`. */
const TASK_RUNNERS = /^(just|task|mage|invoke|inv|earthly)$/;

/** Test runners known by name alone (`prove -lr t`, `busted`, `bats test/`). */
const TEST_PROGRAMS = /^(prove|pg_prove|busted|bats|shellspec|gotestsum|nosetests|nose2|behave|cucumber|cucumber-js|robot|trial|phpspec|codecept|kaocha|elm-test|elm-test-rs|wdio|detox|testem|hspec-discover|tasty-discover|bashunit|roundup|cram|ward|testthat)$/;

/** Build tools known by name alone (`lazbuild x.lpi`, `msbuild App.sln`, `scons`, `ant jar`). */
const BUILD_PROGRAMS = /^(lazbuild|fpc|msbuild|xbuild|scons|waf|premake5|b2|bjam|qmake|ant|nant|tup)$/;

/**
 * Tools that act on a file rather than run it (`rm tests/old.lpr`, `gcc tests/t.c`): a test-folder file given to
 * one of them is no test run.
 */
const FILE_TOOLS = /^(rm|cp|mv|touch|mkdir|rmdir|chmod|chown|chgrp|ln|install|tar|zip|unzip|gzip|gunzip|bzip2|xz|zstd|patch|truncate|dos2unix|unix2dos|code|vim|vi|nvim|nano|emacs|ed|less|more|bat|shellcheck|shfmt|open|xdg-open|cmp|md5sum|sha1sum|sha256sum|base64|iconv|xxd|hexdump|od|strings|rsync|scp|curl|wget|sponge|dd|split|cut|tr|nl|tac|rev|shuf|comm|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|javac|kotlinc|rustc|tsc|ghc|ocamlc|ocamlopt|gfortran|nasm|as|ld|fpc|lazbuild|prettier|eslint|black|ruff|clang-format|gofmt|rustfmt|stylua|dotnet)$/;

/** A file under a test folder at the top of the repository (`tests/runAll.mos`, `./test/runtests.jl`, `spec/all.rb`). */
const TEST_FILE = /^(?:\.\/)?(?:test|tests|spec|specs|t)\/(?:[\w.-]+\/)*[\w.-]+\.[A-Za-z]\w{0,5}$/;

/**
 * PowerShell cmdlets (`pwsh -c '…'` is split like `bash -c`): the verb says the job. Reading cmdlets inspect;
 * module installs install; repository and policy settings set the environment up; Pester, psake and
 * Invoke-Build tasks named so test or build; the script analyzer is the repository's lint.
 */
function cmdletCategory(program: string, args: string[]): CommandCategory | undefined {
  if (!/^[A-Z][a-z]+-[A-Z]\w+$/i.test(program)) return undefined;
  const p = program.toLowerCase();
  if (/^(get|select|format|measure|where|foreach|sort|out|write|test|compare|resolve|split|join|convertto|convertfrom)-/.test(p)) return 'inspect';
  if (/^(install|update|save)-(module|psresource|package|script)$/.test(p)) return 'install';
  if (/^(register|set)-(psrepository|psresourcerepository|executionpolicy|location)$/.test(p) || p === 'import-module') return 'env';
  if (p === 'invoke-pester' || p === 'invoke-scriptanalyzer') return 'test';
  if (p === 'invoke-build' || p === 'invoke-psake') return /test|check/i.test(args[0] ?? '') ? 'test' : /build|compile|pack/i.test(args[0] ?? '') ? 'build' : undefined;
  return undefined;
}

/**
 * The category of a segment whose program `command-category.ts` does not know, from `program`, its positional
 * words (`args`) and the segment from the program on (`core`); undefined when nothing here knows it.
 */
export function toolCategory(program: string, args: string[], core: string): CommandCategory | undefined {
  if (TEST_PROGRAMS.test(program)) return 'test';
  if (BUILD_PROGRAMS.test(program)) return /^(test|tests|check|runtests)$/.test(args[0] ?? '') ? 'test' : 'build';
  const cmdlet = cmdletCategory(program, args);
  if (cmdlet) return cmdlet;
  // SDK managers install toolchain parts (or accept their licences): the environment, like `apt-get install`.
  if (/^(sdkmanager|ghcup|juliaup|elan|opam-switch|sdk|xcode-select)$/.test(program)) return 'system';
  const inline = inlineCategory(program, core);
  if (inline) return inline;
  if (/^(clojure|clj)$/.test(program)) return aliasCategory(core);
  if (/^(godot|godot4|unity|unity-editor|Unity)$/.test(program)) return /gut_cmdln|-runTests\b|--test\b|\bgdUnit/i.test(core) ? 'test' : /--(export|build)|-buildTarget|--import\b/.test(core) ? 'build' : undefined;
  if (/^(cpanm|cpm)$/.test(program)) return /--installdeps|\binstall\b/.test(core) || args.length > 0 ? 'install' : undefined;
  // An interpreter given a script of the test folder (`omc tests/runAll.mos`, `julia test/runtests.jl`,
  // `tclsh tests/all.tcl`): the folder says the job, whatever the language.
  if (!FILE_TOOLS.test(program) && TEST_FILE.test(args.find((a) => !a.startsWith('-')) ?? '')) return 'test';
  // A tool no list here names, with `test` as its subcommand (`pdk test unit`, `foo test --all`): the CLIs of
  // build tools spell running the tests that way, whatever the ecosystem.
  // So is `run` of a script named so (`lune run tests`, `foo run test`), and `install`, `sync` … as the subcommand
  // (`rokit install`, `aftman install`): a toolchain or dependency manager setting itself up.
  if (!BY_SUBCOMMAND.has(program)) {
    if (/^(test|tests)$/.test(args[0] ?? '') || (args[0] === 'run' && /^(test|tests|spec|specs)$/.test(args[1] ?? ''))) return 'test';
    return /^(install|sync|restore|bootstrap)$/.test(args[0] ?? '') ? 'install' : undefined;
  }
  const words = args[0] === 'run' || args[0] === 'exec' ? args.slice(1) : args;
  const job = words[0] ?? '';
  if (/(^|:)(test|tests|spec|specs|runtest|runtests|eunit|ct|proper|e2e|unit|integration)$/.test(job)) return 'test';
  if (TASK_RUNNERS.test(program) && /^(check|lint|ci|verify)$/.test(job)) return 'test';
  if (program === 'xcodebuild') return args.includes('test') ? 'test' : 'build';
  if (/(^|:)(build|compile|b|bundle|dist|assemble)$/.test(job)) return 'build';
  if (/^(install|i|deps|deps\.get|get|fetch|restore|sync|add|update|bootstrap|setup|installdeps)$/.test(job)) return 'install';
  if (/^(gen|generate|codegen)$/.test(job)) return 'generate';
  return undefined;
}

/**
 * Code given to an interpreter on its command line: what it calls says the job. Julia's `Pkg`, R's
 * devtools/testthat/renv, MATLAB and Octave's `runtests`; `R CMD check|INSTALL|build`.
 */
function inlineCategory(program: string, core: string): CommandCategory | undefined {
  if (program === 'R' && /\bCMD\s+(\w+)/.test(core)) {
    const sub = /\bCMD\s+(\w+)/.exec(core)![1]!;
    return sub === 'check' ? 'test' : sub === 'INSTALL' ? 'install' : sub === 'build' ? 'build' : undefined;
  }
  if (!/^(julia|Rscript|R|octave|octave-cli|matlab|ruby|perl|node|python3?|php|elixir|erl|swipl|gst)$/.test(program)) return undefined;
  if (!/\s(-e|-c|-r|--eval|--exec|-batch|-r)\s|\s-e\S|--eval=/.test(` ${core} `)) return undefined;
  if (/\bPkg\.test\b|\b(devtools|testthat)::test\w*|\btest_(check|dir|local|file)\s*\(|\bruntests\b|\bmoxunit_runtests\b|\bExUnit\.run\b|\beunit:test\b|\bunittest\.main\b|\bpytest\.main\b|\brun_tests\b/.test(core)) return 'test';
  if (/\bPkg\.(instantiate|add|resolve|develop|update|precompile)\b|\binstall\.packages\b|\brenv::(restore|install|hydrate)\b|\bremotes::install\w*|\bpak::\w*install|\bdevtools::install\w*|\bBiocManager::install\b|\bpkg\s+install\b/.test(core)) return 'install';
  if (/\bPkg\.build\b|\bdevtools::build\b|\bmex\b/.test(core)) return 'build';
  if (/\bdevtools::document\b|\broxygen\w*::|\bcpp11::cpp_register\b|\bRcpp::compileAttributes\b/.test(core)) return 'generate';
  return undefined;
}

/** `clojure -X:test`, `clj -M:test:runner`, `clojure -T:build uber`, `clojure -P` (download deps). */
function aliasCategory(core: string): CommandCategory | undefined {
  const aliases = [...core.matchAll(/\s-[MXTA]((?::[\w.-]+)+)/g)].flatMap((m) => m[1]!.split(':').filter(Boolean));
  if (aliases.some((a) => /^(test|tests|kaocha|runner|spec)$/.test(a))) return 'test';
  if (aliases.some((a) => /^(build|uber|jar|uberjar)$/.test(a))) return 'build';
  if (/\s-P(\s|$)/.test(` ${core} `)) return 'install';
  return undefined;
}
