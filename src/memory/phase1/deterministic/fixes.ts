import type { RawMemory } from '../../types.js';
import { andedBefore, essentialCommand, filesWrittenBy, sameCommand, splitCommand, workSegments, type Segment } from '../commands.js';
import { errorLines } from '../error-lines.js';
import { jobOf } from '../command-job.js';
import { narrowedTo } from './narrowed.js';
import { readOnlyCommand, setsUpService } from './services.js';
import { segmentOutcome } from '../outcome.js';
import { reasonSaid } from '../findings.js';
import { commandOf, failed, isEdit, type RolloutView, type Step } from '../rollout.js';
import { clip, keywordsOf, quote } from './text.js';
import { sameWhere, stepDirectories, whereOf } from './where.js';
import { editShown, environmentPath, isConfigPath, oneTimeEdit } from './config-paths.js';
import { invocationError, notFound, otherBinary, runnerAdded } from './another-form.js';
import { madePathOf, related, setupSegments } from './fix-related.js';
import { typedAs, typedSetup, unknownToolSetup } from './chain-setup.js';
import { maxOf } from '../../../config/arrays.js';
import { addsOptions, fixedInCode, flakyTest, sameRun, type Failure, type Fix } from './fix-kinds.js';
import { optionsSaidNeeded, samePurpose, unknownStep, unknownStepLine } from './linked.js';

/** The directory each step starts in (`where.ts`). */
function directories(steps: Step[]): Map<number, string> {
  return stepDirectories(steps, (s) => splitCommand(commandOf(s) ?? ''));
}

/**
 * A failure followed by the change that fixed it: a command fails, and a later related command succeeds
 * with no edit to the code in between (so the failure was about the environment or the way of running it,
 * not a bug the run then fixed). Related = same program and subcommand (`make gen`), or same kind of work
 * (test, install) by the same program (`npm test` → `npm run test:unit`), any install after an install
 * failed (`npm ci` → `pnpm install`), or the same check by another route (`jobOf`: `eslint .` → `npm run lint`,
 * `mypy src` → `make typecheck`), or another program doing the same step when the run shows it is (`linked.ts`:
 * `make test` had no such target, then `npm run build && npm test` passed; an edit of the code between does not
 * count there, since it cannot make the step appear). Edits to configuration files and successful setup commands between
 * the two are the fix. Failures that were never fixed, and diagnostics that "fail" (grep finding nothing),
 * teach nothing and yield nothing.
 */
export function failureFixes(view: RolloutView): RawMemory[] {
  const out: RawMemory[] = [];
  const consumed = new Set<number>();
  const dirs = directories(view.steps);
  for (const step of view.steps) {
    if (consumed.has(step.index)) continue;
    const target = failedSegment(step);
    if (!target) continue;
    const found = findFix(view, step, target, dirs);
    if (!found) continue;
    // The whole window is this lesson: a setup command that failed and was then fixed inside it
    // (`apt-get install clang` → `apt-get update && apt-get install clang`) is part of the chain, not a lesson of its own.
    // A fix that only got the command past its first error ends at the run that failed on the next one: that run
    // starts the next lesson (codegen fixed "module not found"; `--runInBand` then fixed the port clash).
    const last = found.movedPast ? found.resolver.index - 1 : found.resolver.index;
    for (let i = step.index; i <= last; i += 1) consumed.add(i);
    const memory = describe(view, [{ step, seg: target }, ...found.chain], found);
    if (memory) out.push(memory);
  }
  return out;
}

/**
 * Work commands that failed and that no later related command made succeed: what a run stopped at the
 * turn limit was blocked on. Each with its most telling error line.
 */
export function unresolvedFailures(view: RolloutView): Array<{ step: Step; command: string; error: string | undefined }> {
  const out: Array<{ step: Step; command: string; error: string | undefined }> = [];
  const dirs = directories(view.steps);
  for (const step of view.steps) {
    const target = failedSegment(step);
    if (!target || target.category === 'other') continue;
    const at = whereOf(dirs.get(step.index)!, splitCommand(commandOf(step) ?? ''), target);
    const later = view.steps.slice(step.index + 1);
    const resolved = later.some((s) => {
      const segs = splitCommand(commandOf(s) ?? '');
      return workSegments(segs).some((seg) => (related(seg, target) || samePurpose(view, step, target, seg)) && sameWhere(whereOf(dirs.get(s.index)!, segs, seg), at) && segmentOutcome(s, segs, seg) === 'passed');
    });
    if (!resolved) out.push({ step, command: target.text, error: errorLines(step.output ?? '', 1)[0] });
  }
  return out;
}


/**
 * Whether `after` (the same command, run again after a change) no longer shows the error `before` failed on
 * and fails on another one instead. Needs an error line on both sides: a bare exit code tells nothing.
 */
function movedPast(before: Step, after: Step, some = false): boolean {
  // `some`: a tool's generic header ("Error: cabal: Could not resolve dependencies:") may stay while its detail
  // changed, so every line that names a problem counts, and one of them going is enough.
  const lines = (o: string) => (some ? o.split('\n').filter((l) => PROBLEM.test(l)).slice(0, 40) : errorLines(o, 2));
  const was = lines(before.output ?? '');
  const now = lines(after.output ?? '');
  if (was.length === 0 || now.length === 0) return false;
  const fold = (t: string) => t.replace(/\s+/g, ' ').trim().toLowerCase();
  const out = fold(after.output ?? '');
  const gone = (w: string) => !out.includes(fold(w));
  return (some ? was.some(gone) : was.every(gone)) && now.some((n) => !was.some((w) => fold(w) === fold(n)));
}

/**
 * `movedPast`, also when the tool's header line stays the same and only its detail changed ("ERROR: Migration
 * V23__x.sql failed" both times; "cannot run inside a transaction block", then "column … does not exist").
 */
function movedOn(before: Step, after: Step): boolean {
  if (movedPast(before, after)) return true;
  const was = errorLines(before.output ?? '', 2);
  return errorLines(after.output ?? '', 2).some((l) => was.includes(l)) && movedPast(before, after, true);
}

/** A line of output that names a problem (for `movedPast` with `some`). */
const PROBLEM = /error|fail|reject|unknown|conflict|not found|missing|cannot|could not|required|unsupported|denied/i;

const WORK = new Set(['test', 'build', 'install', 'system', 'generate', 'env']);

/** The segment that failed: in an `&&` chain the last one that ran is the likely culprit. */
function failingSegment(segments: Segment[]): Segment | undefined {
  const work = workSegments(segments).filter((s) => WORK.has(s.category) || s.category === 'other');
  return work.at(-1);
}

/**
 * The segment of a command step that failed, or undefined: its own outcome when that can be told
 * (`npm test | tail` exiting 0 with "2 failed" in the output failed), else the step's exit code.
 */
function failedSegment(step: Step): Segment | undefined {
  const cmd = commandOf(step);
  if (!cmd) return undefined;
  const segs = splitCommand(cmd);
  const target = failingSegment(segs);
  if (!target) return undefined;
  const outcome = segmentOutcome(step, segs, target);
  return outcome === 'failed' || (outcome === 'unknown' && failed(step)) ? target : undefined;
}

function findFix(view: RolloutView, failure: Step, target: Segment, dirs: Map<number, string>): Fix | undefined {
  const steps = view.steps;
  const chain: Failure[] = [];
  const at = whereOf(dirs.get(failure.index)!, splitCommand(commandOf(failure) ?? ''), target);
  const changes: Fix['changes'] = [];
  let changedBetween = false;
  let past: Fix | undefined;
  // What happened since the newest failure of the chain: a pass after nothing at all is that failure's rerun.
  let sinceChain = { changes: 0, changed: false };
  for (const next of steps.slice(failure.index + 1)) {
    // The tool could not run the step at all (no such make target or script, not found): a change of the code
    // cannot make the step appear, so the other program that then did it still answers that failure.
    const stepless = unknownStep(chain.at(-1)?.step ?? failure);
    if (isEdit(next)) {
      const path = String(next.input.path);
      if (!isConfigPath(path)) {
        if (stepless && !namesFileOf(failure, [path])) {
          changedBetween = true;
          sinceChain.changed = true;
          continue;
        }
        return past; // the code changed: a dev loop, not an environment lesson
      }
      changes.push({ step: next, text: `changing ${path.replace(/^\/workspace\//, '')}${editShown(next)}`, oneTime: oneTimeEdit(path) });
      continue;
    }
    const cmd = commandOf(next);
    if (!cmd) continue;
    const written = filesWrittenBy(cmd);
    if (written.some((p) => !isConfigPath(p))) {
      if (!stepless || namesFileOf(failure, written)) return past;
      changedBetween = true;
      sinceChain.changed = true;
      continue;
    }
    // `sed -i …` on a file of the repository: a change made once (and committed), like an editor edit.
    const segs = splitCommand(cmd);
    // A file copied into place (`cp .env.example .env.test`) is best retyped as the command that made it.
    const copy = segs.find((s) => /^(cp|mv|install|ln)$/.test(s.program) && written.includes(s.args.filter((a) => !a.startsWith('-')).at(-1) ?? ''));
    // A file of the environment made by a command (`sed … example.xml > ~/.m2/toolchains.xml`) is redone by that command.
    const maker = copy ?? (written.every(environmentPath) ? segs.find((s) => s.category !== 'shell' && !/^(mkdir|cd|cat|ls)$/.test(s.program) && written.some((p) => s.text.includes(p))) : undefined);
    const dir = maker && maker !== copy ? segs.slice(0, segs.indexOf(maker)).find((s) => s.program === 'mkdir') : undefined;
    if (written.length) changes.push({ step: next, text: maker ? (dir ? `${dir.text} && ${maker.text}` : maker.text) : `changing ${written.map((p) => p.replace(/^\/workspace\//, '')).join(', ')}`, oneTime: written.every(oneTimeEdit) });
    // The same check in another directory or package (`pnpm run lint` in web/ after `make lint` failed in services/api) is not its fix.
    // `python manage.py migrate && python manage.py test`: the same program, but the migration is setup, not the rerun.
    // The same command run on part of the project (`dotnet build` → `dotnet build src/Cli tests/Unit`) passed because it ran less.
    const candidates = workSegments(segs).filter((s) => (related(s, target) || samePurpose(view, failure, target, s)) && !narrowedTo(target, s) && sameWhere(whereOf(dirs.get(next.index)!, segs, s), at));
    const match = candidates.find((s) => !setsUpService(s) || setsUpService(target)) ?? candidates[0];
    const outcome = match ? segmentOutcome(next, segs, match) : undefined;
    if (match && outcome === 'passed') {
      // The setup got it past its first error, then the identical command failed and passed with nothing done in
      // between: that failure was flaky, a lesson of its own (`flakyTest`), not part of the setup's.
      const lastFail = chain.at(-1);
      const rerun = lastFail && changes.length === sinceChain.changes && !sinceChain.changed && sameRun(lastFail, { chain, resolver: next, resolverSegs: segs, resolverSeg: match, changes: [], changedBetween: false });
      if (past && rerun) return past;
      // Another form of the command (`PLAYWRIGHT_BROWSERS_PATH=… npm run test:e2e`) got past the first error, failed
      // on another test, and its identical rerun passed: the form is this lesson, the flaky test the next one.
      if (rerun && lastFail.step !== failure) {
        const form = splitCommand(commandOf(lastFail.step) ?? '');
        const seg = form.find((s) => s.text === lastFail.seg.text);
        if (seg && (changes.length > 0 || essentialCommand(form, seg) !== target.text)) {
          return { chain: chain.slice(0, -1), resolver: lastFail.step, resolverSegs: form, resolverSeg: seg, changes, changedBetween, movedPast: true, ranAs: changes.length === 0 };
        }
      }
      // Setup got it past its first error and then the command itself changed (`pnpm test -- --runInBand`): two
      // lessons, the setup's and the new form's, so that retiring one (a later switch away from Jest) keeps the other.
      // Only a variable set in front of it (`WREN_BOARD=v2 cargo build`) is setup of the same chain, not a new form.
      // Nor is a form that had already failed as typed before the setup that made it pass (`latexmk … -interaction=…`
      // failing on one missing piece after another): the whole chain is the fix.
      const asTyped = lastFail !== undefined && lastFail.step !== failure && typedAs(lastFail) === essentialCommand(segs, match);
      if (past && !asTyped && essentialCommand(segs, match) !== target.text && !sameCommand(match, target) && match.core !== target.core) return past;
      // Setup typed in front of the command that then passed (`pip install tox-uv && tox -e py312`) is part of the fix.
      const typedBefore = new Set(splitCommand(commandOf(failure) ?? '').map((s) => s.text));
      // So is a step of a tool the categories do not know, joined by `&&` in front of it (`AIRFLOW_HOME=… airflow
      // db migrate && pytest`, `sudo pg_ctlcluster 15 main start && dbt build`): it ran, passed, and the command then did.
      // Never a formatter or linter (`cargo fmt && cargo clippy`: it changed the code) nor the same program (`dotnet format`).
      const unknownSetup = andedBefore(segs, match).filter((s) => s.category === 'other' && !jobOf(s) && s.program !== target.program && !related(s, target));
      // The environment set up in front stays with the command (`export X=… && cmd`), unless a setup step comes
      // after it: `Register-PSRepository …; Install-Module … -Repository …; Invoke-Build Test` keeps its order.
      const setup = [...setupSegments(next, segs, target), ...unknownSetup].filter((s) => segs.indexOf(s) < segs.indexOf(match) && !typedBefore.has(s.text));
      const lastSetup = maxOf(setup.filter((s) => s.category !== 'env').map((s) => segs.indexOf(s)), -1);
      const before = setup
        .filter((s, k, all) => all.indexOf(s) === k && (s.category !== 'env' || segs.indexOf(s) < lastSetup))
        .sort((a, b) => segs.indexOf(a) - segs.indexOf(b));
      if (before.length > 0) changes.push({ step: next, text: before.map((s) => s.text).join(' && ') });
      return { chain, resolver: next, resolverSegs: segs, resolverSeg: match, changes, changedBetween };
    }
    if (match && (outcome === 'failed' || (outcome === 'unknown' && failed(next)))) {
      // Not found as typed, and another form of it then ran (`nix … develop -c ansible-lint x`, `python -m pytest`):
      // that form is the lesson, whatever the run then found in the code.
      // So is an option added to it that got it past its error (`cabal build all -w ghc-9.6.4`: the default GHC was too old).
      const reformed = (notFound(failure) && !notFound(next)) || (changes.length === 0 && !changedBetween && addsOptions(target, match) && movedPast(failure, next, true));
      if (reformed && essentialCommand(segs, match) !== target.text) {
        // A step before it that made what the new form uses (`rokit install` printing "linked into
        // ~/.rokit/bin", then `export PATH="$HOME/.rokit/bin:$PATH" && lune run tests`) belongs to it.
        const made = changes.filter((c) => !c.text.startsWith('changing ') && madePathOf(c.step, cmd));
        // The form is the lesson unless a later run of it with more setup passes (`source setchplenv.bash &&
        // mason test` failed on CHPL_LLVM, then `… && export CHPL_LLVM=system && mason test` passed): that whole
        // chain is. A change of the code after it ends the search with the form.
        past ??= { chain: [...chain], resolver: next, resolverSegs: segs, resolverSeg: match, changes: made, changedBetween, ranAs: true };
        chain.push({ step: next, seg: match });
        sinceChain = { changes: changes.length, changed: false };
        continue;
      }
      // Setup typed in front of it that passed (`apt-get update && apt-get install build-essential && cargo
      // build`) is part of the chain even though the command then failed on its next missing piece.
      const typed = new Set(splitCommand(commandOf(failure) ?? '').map((x) => x.text));
      // It ran, so everything joined to it by `&&` before it passed.
      const at = segs.indexOf(match);
      // `;` runs the next one whatever happened; the error changed, so what ran before it counts too.
      const ran = segs.slice(0, at).filter((_, k) => segs.slice(k + 1, at + 1).every((x) => x.joiner === '&&' || x.joiner === ';' || x.piped));
      const prep = target.category === 'test' || target.category === 'build' ? ['build', 'generate'] : [];
      const before = ran.filter((x) => (x.category === 'system' || x.category === 'install' || x.category === 'env' || setsUpService(x) || (prep.includes(x.category) && !related(x, target))) && !typed.has(x.text) && x.program !== 'cd');
      // A piped setup keeps what feeds it (`yes | sdkmanager --licenses`).
      const shown = (x: Segment) => (x.piped && segs[segs.indexOf(x) - 1] ? `${segs[segs.indexOf(x) - 1]!.text} | ${x.text}` : x.text);
      if (before.length > 0) changes.push({ step: next, text: before.map(shown).join(' && ') });
      // The setup got the command past its error, and it now fails on another one (a real bug the run then
      // fixed in the code): the setup is the fix of the first failure all the same.
      // Kept as the answer only if no later run of it passes before the code changes. A further setup step that
      // gets it past its next error (Postgres started → "database does not exist" → `db:prepare`) joins the chain.
      const previous = chain.at(-1)?.step ?? failure;
      if (changes.length > 0 && movedOn(failure, next) && (!past || movedOn(previous, next))) past = { chain: [...chain], resolver: next, resolverSegs: segs, resolverSeg: match, changes: [...changes], changedBetween, movedPast: true };
      chain.push({ step: next, seg: match });
      sinceChain = { changes: changes.length, changed: false };
      continue;
    }
    if (!readOnlyCommand(cmd)) {
      changedBetween = true;
      sinceChain.changed = true;
    }
    // Every setup command of the step, not only its last (`go install …golangci-lint && export PATH=…/bin`); else a
    // passing step of a tool no category knows (`npx cdktf get`): nothing in the code changed, so it is part of the fix.
    const setup = setupSegments(next, segs, target);
    const made = setup.length > 0 ? setup : next.exitCode === 0 ? unknownToolSetup(segs, target) : [];
    if (made.length > 0) changes.push({ step: next, text: made.map((s) => s.text).join(' && ') });
  }
  return past;
}

/** Whether the failed command names one of `paths` (by base name): writing that file may be what made it run. */
function namesFileOf(failure: Step, paths: string[]): boolean {
  const cmd = commandOf(failure) ?? '';
  return paths.some((p) => {
    const base = p.split('/').pop() ?? p;
    return base !== '' && cmd.includes(base);
  });
}

/**
 * A setup step as code spans. A step of several commands (`a && b && c`, one tool call) longer than one span's
 * clip is shown as one span per command: cutting the joined text at 160 characters dropped the chain's last
 * commands (`… && arduino-cli core update-…`, the `core install` that made the build work gone).
 */
function setupSpans(step: string): string {
  const commands = step.split(' && ');
  if (step.length <= 160 || commands.length === 1) return `\`${clip(step, 160)}\``;
  return commands.map((c) => `\`${clip(c, 160)}\``).join(' && ');
}

function describe(view: RolloutView, failures: Failure[], fix: Fix): RawMemory | undefined {
  const first = failures[0]!;
  const fixCmd = essentialCommand(fix.resolverSegs, fix.resolverSeg);
  // As shown: without the environment setup the changes already list (they ran before the rest of the setup).
  const listed = new Set(fix.changes.flatMap((c) => c.text.split(' && ')));
  const shownCmd = essentialCommand(fix.resolverSegs.filter((s) => s === fix.resolverSeg || !listed.has(s.text)), fix.resolverSeg);
  // Another spelling of the same command (`./x.sh` → `bash x.sh`) is a lesson only when the spelling was the
  // problem (not executable, not found); otherwise it is a plain retry.
  const unchanged = failures.every(
    (f) =>
      f.seg.text === fixCmd ||
      // Typed the same way, setup in front included (`export PATH=… && scarb fmt --check` both times).
      (!invocationError(f.step) && typedAs(f) === fixCmd) ||
      (sameCommand(f.seg, fix.resolverSeg) && !invocationError(f.step) && !otherBinary(f.seg, fix.resolverSeg) && !runnerAdded(f.seg, fix.resolverSeg) && essentialCommand(fix.resolverSegs, fix.resolverSeg) === fix.resolverSeg.text),
  );
  // Only a rerun with nothing but looking in between is identical: a service started or anything else run is a change.
  if (fix.changes.length === 0 && !fix.changedBetween && failures.every((f) => sameRun(f, fix))) return flakyTest(failures, fix);
  if (unchanged && fix.changes.length === 0) return undefined; // another spelling of the same command passed: a retry, no lesson
  // …unless the agent said the tests need the options the working form added (`go test -tags integration ./...`).
  if (fixedInCode(failures, fix) && !failures.some((f) => optionsSaidNeeded(view, f.step, f.seg, fix.resolverSeg))) return undefined;
  // A procedure is something to do again before the command; an edit of the repository was done once (issue 12 item 5).
  const needsSetup = unchanged && fix.changes.some((c) => !c.oneTime);
  const parts = failures.map((f, i) => {
    const unknown = unknownStepLine(f.step);
    const why = errorLines(f.step.output ?? '');
    if (why.length === 0 && unknown) why.push(clip(unknown, 220));
    const said = why.length ? `: ${why.map((w) => quote(w)).join(' / ')}` : ` (exit ${f.step.exitCode ?? '?'})`;
    return `${i === 0 ? '' : 'then '}\`${clip(f.seg.text, 160)}\` failed${said}`;
  });
  // What each failure had typed in front of it and passed comes first (a plain retry has no lesson, above).
  const typed = failures.flatMap(typedSetup).filter((t) => !fix.changes.some((c) => c.text.includes(t)) && !shownCmd.includes(t));
  const changes = [...new Set([...(typed.length ? [typed.join(' && ')] : []), ...fix.changes.map((c) => c.text)])];
  let text: string;
  if (fix.ranAs) {
    const setup = changes.length ? `${changes.map(setupSpans).join(', then ')}, then ` : '';
    text = notFound(first.step)
      ? `In this environment ${parts[0]}. It runs as ${setup}\`${clip(shownCmd, 200)}\`.`
      : `In this environment ${parts[0]}. ${setup ? `${setup[0]!.toUpperCase()}${setup.slice(1)}` : ''}\`${clip(shownCmd, 200)}\` got past that error.`;
  } else if (fix.movedPast) {
    const made = changes.map((c) => (c.startsWith('changing ') ? c : setupSpans(c))).join(', then ');
    text = `\`${clip(first.seg.core, 160)}\` needs ${made} first. Without it ${parts[0]}. (With it the command got past that error.)`;
  } else if (needsSetup) {
    const repeat = [...new Set(fix.changes.filter((c) => !c.oneTime).map((c) => c.text))];
    const once = [...new Set(fix.changes.filter((c) => c.oneTime).map((c) => c.text))];
    text = `\`${clip(first.seg.core, 160)}\` needs ${repeat.map((c) => (c.startsWith('changing ') ? c : setupSpans(c))).join(', then ')} first. Without it ${parts.join('; ')}.${once.length ? ` (The run also made a one-time change: ${once.join(', ')}.)` : ''}`;
  } else {
    // In the order they ran: the next agent retypes them top to bottom.
    const before = changes.filter((c) => !shownCmd.includes(c)).map((c) => (c.startsWith('changing ') ? c : setupSpans(c)));
    text = `In this environment ${parts.join('; ')}. What worked: ${[...before, `\`${clip(shownCmd, 200)}\``].join(', then ')}.`;
  }
  // The reason, when the agent said it between the failure and the fix ("the running daemon does not know the new JDK").
  const reason = reasonSaid(view, first.step.at, fix.resolver.at);
  if (reason && !text.includes(reason)) text += ` (Why, in the agent's words: “${reason}”)`;
  const lines = new Set<number>();
  for (const f of failures) {
    lines.add(f.step.callLine);
    if (f.step.resultLine) lines.add(f.step.resultLine);
  }
  for (const c of fix.changes) lines.add(c.step.callLine);
  lines.add(fix.resolver.callLine);
  if (fix.resolver.resultLine) lines.add(fix.resolver.resultLine);
  const firstWhy = errorLines(first.step.output ?? '', 1)[0];
  return {
    kind: needsSetup || fix.ranAs ? 'procedure' : 'pitfall',
    text,
    evidence: { lines: [...lines].sort((a, b) => a - b), ...(firstWhy ? { quote: clip(firstWhy, 200) } : {}) },
    importance: first.seg.category === 'system' || first.seg.category === 'install' || first.seg.category === 'build' ? 4 : 3,
    keywords: keywordsOf([first.seg.key, fix.resolverSeg.key, ...failures.flatMap((f) => errorLines(f.step.output ?? '', 1))]),
  };
}
