import type { RawMemory } from '../../types.js';
import { essentialCommand, splitCommand, workSegments, type Segment } from '../commands.js';
import { commandOf, type RolloutView, type Step } from '../rollout.js';
import { outputShowsFailure, reportsFailingTests, printedStatus } from '../outcome.js';
import { clip, keywordsOf, quote } from './text.js';
import { lastAssistantText } from '../findings.js';
import { pushAll } from '../../../config/arrays.js';

/** Each test segment of a step whose output reports failing tests, with its command's segments and the first summary line. */
function* failingTestRuns(view: RolloutView): Generator<{ step: Step; segs: Segment[]; seg: Segment; said: string }> {
  for (const step of view.steps) {
    const cmd = commandOf(step);
    const output = step.output ?? '';
    if (!cmd || !reportsFailingTests(output)) continue;
    const said = output.split('\n').map((l) => l.trim()).find((l) => reportsFailingTests(l)) ?? '';
    const segs = splitCommand(cmd);
    for (const seg of workSegments(segs)) if (seg.category === 'test') yield { step, segs, seg, said };
  }
}

/**
 * A test command whose own exit status was 0 while its output reported failing tests (issue 12: "a test command
 * exiting 0 when tests fail"): the next run must read the summary, not trust the status. The status is the
 * command's own when nothing but `&&` follows it and no pipe hides it, or when the run printed it (`; echo $?`,
 * `echo "exit=${PIPESTATUS[0]}"`). One pitfall per command, with the summary line that said so.
 */
export function exitZeroFailures(view: RolloutView): RawMemory[] {
  const out: RawMemory[] = [];
  const seen = new Set<string>();
  for (const { step, segs, seg, said } of failingTestRuns(view)) {
    if (seen.has(seg.canonical) || ownStatus(step, segs, seg) !== 0) continue;
    seen.add(seg.canonical);
    out.push({
      kind: 'pitfall',
      text: `\`${clip(essentialCommand(segs, seg), 200)}\` exits 0 even when tests fail (its output said ${quote(clip(said, 120))} with status 0): read the summary it prints, not the exit code.`,
      evidence: { lines: [step.callLine, ...(step.resultLine ? [step.resultLine] : [])] },
      importance: 4,
      keywords: keywordsOf([seg.key, 'exit code', 'tests']),
    });
  }
  const trusted = trustedExitCodes(view, seen);
  pushAll(out, [...reportedAfter(view, seen), ...wrapperExitZero(view, seen), ...trusted, ...exitCodeReported(view, seen, trusted.map((m) => m.text))]);
  return out;
}

/**
 * A test command whose own status was 0, and right after it (nothing edited or run between) the same program's
 * report of those tests (`colcon test` → `colcon test-result --verbose`; any subcommand that extends the first,
 * or any other subcommand when the first is a test runner) exited non-zero on failures: the tests failed while
 * the command said 0. One pitfall per command naming the report to check with.
 */
function reportedAfter(view: RolloutView, seen: Set<string>): RawMemory[] {
  const out: RawMemory[] = [];
  const commands = view.steps.filter((s) => commandOf(s) || s.name !== 'bash');
  commands.forEach((step, i) => {
    const next = commands[i + 1];
    const cmd = commandOf(step);
    const report = next && commandOf(next);
    if (!cmd || !report || !next.exitCode || reportsFailingTests(step.output ?? '') || !reportsFailingTests(next.output ?? '')) return;
    const segs = splitCommand(cmd);
    const reportSegs = workSegments(splitCommand(report));
    for (const seg of workSegments(segs)) {
      const sub = firstWord(seg);
      const by = reportSegs.find((r) => r.program === seg.program && r.canonical !== seg.canonical && firstWord(r) !== sub && (seg.category === 'test' || (sub.length > 0 && firstWord(r).startsWith(sub))));
      if (!by || seen.has(seg.canonical) || ownStatus(step, segs, seg) !== 0) continue;
      seen.add(seg.canonical);
      const said = (next.output ?? '').split('\n').map((l) => l.trim()).filter((l) => reportsFailingTests(l)).at(-1) ?? '';
      out.push({
        kind: 'pitfall',
        text: `\`${clip(essentialCommand(segs, seg), 200)}\` exits 0 even when tests fail: \`${clip(by.text, 160)}\`, run right after it, reported ${quote(clip(said, 120))} and exited ${next.exitCode}. Check the result with \`${clip(by.text, 160)}\`, not the exit code.`,
        evidence: { lines: [step.callLine, next.callLine, ...(next.resultLine ? [next.resultLine] : [])] },
        importance: 4,
        keywords: keywordsOf([seg.key, by.key, 'exit code', 'tests']),
      });
    }
  });
  return out;
}

const firstWord = (s: Segment) => s.args.find((a) => !a.startsWith('-')) ?? '';

/** The wording of `trustedExitCodes`' fact; phase 2 reads it to retire an older "exits 0 even when tests fail". */
export const TRUSTED_EXIT = 'exits non-zero when tests fail';

/**
 * A test command whose status the run printed itself (`; echo "exit=$?"`: the agent was checking the exit code)
 * and which reported failing tests with a non-zero status: its exit code can be trusted. Only the printed
 * status counts — an ordinary failing run says nothing about whether the code was ever in doubt — and only
 * when no run of the same command in this rollout exited 0 on failures (`seen`).
 */
function trustedExitCodes(view: RolloutView, seen: Set<string>): RawMemory[] {
  const out: RawMemory[] = [];
  const done = new Set<string>();
  for (const { step, segs, seg, said } of failingTestRuns(view)) {
    if (seen.has(seg.canonical) || done.has(seg.canonical)) continue;
    const status = printedStatus(step, segs, seg);
    if (status === undefined || status === 0) continue;
    done.add(seg.canonical);
    out.push({
      kind: 'fact',
      text: `\`${clip(essentialCommand(segs, seg), 200)}\` ${TRUSTED_EXIT} (its output said ${quote(clip(said, 120))} with status ${status}): its exit code can be trusted.`,
      evidence: { lines: [step.callLine, ...(step.resultLine ? [step.resultLine] : [])] },
      importance: 3,
      keywords: keywordsOf([seg.key, 'exit code', 'tests']),
    });
  }
  return out;
}

/**
 * A command the agent's final message says something about the exit code of ("`make test` now exits non-zero when
 * a rule test fails"), which this run saw fail with a non-zero status on a failure in its output: its exit code can
 * be trusted (the same fact as `trustedExitCodes`, which phase 2 reads to retire an older "exits 0 even when …").
 * The agent's mention is what says the code was in doubt; the failing run with its status is the evidence. Never
 * a command this run saw exit 0 on a failure (`seen`).
 */
function exitCodeReported(view: RolloutView, seen: Set<string>, known: string[]): RawMemory[] {
  const final = lastAssistantText(view)?.text ?? '';
  const out: RawMemory[] = [];
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (!cmd || !step.exitCode || !outputShowsFailure(step.output ?? '')) continue;
    const segs = splitCommand(cmd);
    for (const seg of workSegments(segs).filter((s) => s.category === 'test' || WRAPPER.test(s.core))) {
      const shown = essentialCommand(segs, seg);
      if (seen.has(seg.canonical) || known.some((k) => k.startsWith(`\`${shown}\``)) || out.some((m) => m.text.startsWith(`\`${shown}\``))) continue;
      const about = final.split(/(?<=[.!?;。])\s+|\n+/).find((p) => p.includes(`\`${seg.text}\``) || p.includes(`\`${shown}\``));
      if (!about || !/\b(exit(s|ed)?|exit (code|status)|non-?zero|status)\b/i.test(about)) continue;
      const said = (step.output ?? '').split('\n').map((l) => l.trim()).filter((l) => outputShowsFailure(l)).at(-1) ?? '';
      out.push({
        kind: 'fact',
        text: `\`${clip(shown, 200)}\` ${TRUSTED_EXIT} (its output said ${quote(clip(said, 120))} with status ${step.exitCode}): its exit code can be trusted.`,
        evidence: { lines: [step.callLine, ...(step.resultLine ? [step.resultLine] : [])] },
        importance: 3,
        keywords: keywordsOf([seg.key, 'exit code', 'tests']),
      });
    }
  }
  return out;
}

/** A package script or make target (`npm run preview`, `pnpm build`, `make deploy-check`): where `|| true` hides. */
const WRAPPER = /^(npm run|npm run-script|pnpm( run)?|yarn( run)?|bun run|make|just|task) \S/;

/**
 * A wrapper (`WRAPPER`) whose own status was 0 while its output ended in a failure (`error: …`, `npm ERR!`),
 * (nothing but `&&` after it, no pipe): the script swallows its errors (an `|| true` in it), so the next run
 * must not trust its exit code. Read from structure (its own status and its output), not from the
 * script's text, which the transcript may not show.
 */
function wrapperExitZero(view: RolloutView, seen: Set<string>): RawMemory[] {
  const out: RawMemory[] = [];
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (!cmd || step.exitCode !== 0 || !outputShowsFailure(step.output ?? '')) continue;
    const segs = splitCommand(cmd);
    for (const seg of workSegments(segs)) {
      if (!WRAPPER.test(seg.core) || seen.has(seg.canonical) || ownStatus(step, segs, seg) !== 0) continue;
      seen.add(seg.canonical);
      const said = (step.output ?? '').split('\n').map((l) => l.trim()).filter((l) => outputShowsFailure(l)).at(-1) ?? '';
      out.push({
        kind: 'pitfall',
        text: `\`${clip(seg.text, 200)}\` exits 0 even when it fails (it printed ${quote(clip(said, 120))} with status 0; an \`|| true\` or the like swallows the error): read its output, or run the command it wraps directly.`,
        evidence: { lines: [step.callLine, ...(step.resultLine ? [step.resultLine] : [])] },
        importance: 4,
        keywords: keywordsOf([seg.key, 'exit code']),
      });
    }
  }
  return out;
}

/** The segment's own exit status when the step shows it (nothing but `&&` after it, or printed), else undefined. */
function ownStatus(step: Step, segs: Segment[], seg: Segment): number | undefined {
  if (step.exitCode === 0 && segs.slice(segs.indexOf(seg) + 1).every((s) => s.joiner === '&&')) return 0;
  return printedStatus(step, segs, seg);
}
