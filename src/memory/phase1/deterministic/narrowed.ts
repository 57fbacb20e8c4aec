import type { Segment } from '../commands.js';

/**
 * A rerun that ran less (issue 12, kind 2: the fix is what made the failing command pass): the same program and
 * subcommands as a command that failed, limited to paths it did not name, passes because it skipped the failing
 * part, not because anything was fixed.
 */

/** A path argument (`src/Cli`, `tests/x.py`; not `./...` nor `.`, which are everything, nor a version, `ghc-9.6.4`). */
const isPathArg = (x: string) => !x.startsWith('-') && (/\//.test(x) || /\.[a-z]\w*$/i.test(x)) && !/^(\.\/)?\.\.\.$|^\.\/?$/.test(x);
const words = (s: Segment) => s.args.filter((x) => !x.startsWith('-') && !isPathArg(x)).join(' ');

/**
 * `after` is `before`'s program and subcommands (every other word the same) limited to paths, where `before` named none
 * (`dotnet build` → `dotnet build src/Cli tests/Unit`; `cabal build all` → `cabal build all -w ghc-9.6.4` is not).
 */
export function narrowedTo(before: Segment, after: Segment): boolean {
  return before.program === after.program && words(before) === words(after) && !before.args.some(isPathArg) && after.args.some(isPathArg);
}
