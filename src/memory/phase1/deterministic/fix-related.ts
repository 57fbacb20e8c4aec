/**
 * Which commands of a run belong together when a failure is followed by what fixed it (`fixes.ts`): the same
 * command or job by another route (`related`), the setup commands of a step (`setupSegments`), and a setup step
 * whose output named a folder a later command used (`madePathOf`).
 */
import { sameCommand, workSegments, type Segment } from '../commands.js';
import { checksOnly, jobOf, rewritesWhatItChecked } from '../command-job.js';
import { segmentOutcome } from '../outcome.js';
import type { Step } from '../rollout.js';
import { setsUpService, toolSetup } from './services.js';

/** A flag by which a formatter or fixer only reports what it would change. */
const CHECK_FLAG = /(^|\s)(--check|--diff|--verify-no-changes|--list-different|--check-formatted|-check|--dry-run)(=\S*)?(\s|$)/;

const firstWord = (s: Segment) => s.args.find((x) => !x.startsWith('-')) ?? '';

export function related(a: Segment, b: Segment): boolean {
  const job = jobOf(a);
  // A check and a fixer of the same job (`prettier --check` → `prettier --write`) are a dev loop: the code changed.
  if (job && job === jobOf(b) && checksOnly(a) !== checksOnly(b)) return false;
  // Any tool, known or not: the same program and subcommand with and without a check flag (`stylua --check src`
  // → `stylua src`, `gleam format --check` → `gleam format`) is a check and its fixer.
  if (a.program === b.program && CHECK_FLAG.test(a.args.join(' ')) !== CHECK_FLAG.test(b.args.join(' ')) && firstWord(a) === firstWord(b)) return false;
  // A flag of the check traded for an in-place flag (`jsonnetfmt --test f` → `jsonnetfmt -i f`): the tool rewrote what it checked.
  if (rewritesWhatItChecked(b, a)) return false;
  // Refreshing a package index (`apt-get update`, `helm repo update`) installs nothing: it is setup before an
  // install, never the install that passed (`apt-get update` exits 0 even when every mirror failed).
  if (refreshesIndex(a) !== refreshesIndex(b)) return false;
  if (a.key === b.key || sameCommand(a, b)) return true;
  // The same check by another route: `eslint .` failed, `npm run lint` passed (a tool and the repository's wrapper).
  if (job && job === jobOf(b) && checksOnly(a) && checksOnly(b)) return true;
  if (a.category !== b.category) return false;
  if (a.program === b.program) return a.category !== 'other' && a.category !== 'env';
  return a.category === 'install';
}

/** Package managers whose `update` (`makecache`, `refresh`, `-Sy`) refreshes the index rather than upgrading packages. */
const SYSTEM_PM = /^(apt|apt-get|aptitude|yum|dnf|microdnf|apk|zypper|pacman|brew|port|pkg|opkg)$/;

/** The segment refreshes a package index: `apt-get update`, `dnf makecache`, `pacman -Sy`, `helm repo update`, `x update-index`. */
export function refreshesIndex(s: Segment): boolean {
  const words = s.args.filter((x) => !x.startsWith('-'));
  if (words.includes('update-index') || (words[0] === 'repo' && words[1] === 'update')) return true;
  if (!SYSTEM_PM.test(s.program)) return false;
  if (s.program === 'pacman') return s.args.some((x) => /^-Sy+$/.test(x)) && words.length === 0;
  return /^(update|makecache|refresh|check-update|selfupdate)$/.test(words[0] ?? '') && words.length === 1;
}

/**
 * Whether the output of `step` (a setup command that ran) names a directory that `command` then uses: the
 * paths in `command` with `$HOME`, `${HOME}` or `~` taken off (`.rokit/bin`, `.cargo/env`, `/opt/x/bin`), at
 * least two segments long, found in the output ("Tools were linked into /home/agent/.rokit/bin"). Pure.
 */
export function madePathOf(step: Step, command: string): boolean {
  const output = step.output ?? '';
  if (!output) return false;
  const paths = [...command.matchAll(/(?:\$\{?HOME\}?|~)?(\/?[\w.+-]+(?:\/[\w.+-]+)+)/g)].map((m) => m[1]!.replace(/^\//, ''));
  return paths.some((p) => p.split('/').length >= 2 && p.length >= 6 && output.includes(p));
}

/**
 * Setup commands of a step that passed: environment, system packages, dependency installs, starting a service
 * (`docker compose up -d postgres`, `service postgresql start`) or preparing its data (`rails db:prepare`:
 * `setsUpService`), making an empty file it needs (`touch`); for a failing
 * test or build also building or generating another part first (`pnpm --filter tokens build` before the ui tests).
 */
export function setupSegments(step: Step, segs: Segment[], target: Segment): Segment[] {
  const prep = target.category === 'test' || target.category === 'build' ? ['build', 'generate'] : [];
  // A service start can look like inspection to the categories (`brew services start x`); it is setup all the same.
  const work = workSegments(segs);
  // An empty file made for it (`touch database/database.sqlite`, `touch .env.local`): the command needed it to exist.
  const made = (s: Segment) => s.program === 'touch' && s.args.some((a) => !a.startsWith('-'));
  return segs.filter((s) => work.includes(s) || setsUpService(s) || made(s)).filter(
    (s) =>
      (s.category === 'env' || s.category === 'system' || s.category === 'install' || setsUpService(s) || made(s) || toolSetup(s, target) || (prep.includes(s.category) && !related(s, target))) &&
      s.program !== 'cd' &&
      // `epmd -daemon; sleep 1; epmd -names`: a service start whose line then ran to a clean end did its job; so did
      // an install (`…; Install-Module Pester …; Invoke-Build Test`, PowerShell's statements end in `;`).
      (segmentOutcome(step, segs, s) === 'passed' || ((setsUpService(s) || s.category === 'install' || s.category === 'system' || s.category === 'env') && step.exitCode === 0 && segmentOutcome(step, segs, s) === 'unknown')),
  );
}
