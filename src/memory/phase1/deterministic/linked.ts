/**
 * When the run itself ties a failed command to another that then worked (new-user trial 27): the pair rule of
 * `fixes.ts` (`related`) wants the same program, or any install after an install. Two more ways the run shows that
 * a command of another program did the same step, whatever the importer and the language:
 * - the failed tool could not run that step at all (`make test`: "No rule to make target 'test'"; `npm run test`:
 *   "Missing script"; a task or subcommand the tool does not know; not found): the step is done another way here;
 * - the agent's own words after the failure name the working command and say it is the one to use or needed
 *   ("There is no make target; use `npm run build && npm test`").
 * And a test run that failed on its assertions and passed with options added (`go test ./...` → `go test -tags
 * integration ./...`) is a way of running the tests, not a check changed (`fixedInCode`), when the agent says the
 * tests need those options ("Tests need -tags integration.").
 */
import type { Segment } from '../commands.js';
import { sentencesOf } from '../findings.js';
import type { RolloutView, Step } from '../rollout.js';
import { notFound } from './another-form.js';
import { addedArgs } from './fix-kinds.js';

/** Kinds of work a command of another program can do in its place. */
const PURPOSE = new Set(['test', 'build', 'install', 'generate']);

/**
 * The tool did not know the step it was asked for: a make target, a package script, a task or a subcommand
 * (the runners' own English messages), or the program was not found.
 */
const UNKNOWN_STEP =
  /No rule to make target|missing script:|Missing script|npm (ERR!|error) missing script|Unknown (command|task|target|script|subcommand)|no such (task|target|command|script|subcommand)|Task '[^']+' not found|task [“"'][^”"']+[”"'] (is )?not found|is not a task|Could not find (task|command)|Command "[^"]+" not found|Couldn't find a script named|error: no such command|unrecognized (subcommand|command)|Did you mean one of these/i;

/** The failed step could not run what it was asked to (`UNKNOWN_STEP`, or not found). */
export function unknownStep(step: Step): boolean {
  return notFound(step) || UNKNOWN_STEP.test(step.output ?? '');
}

/**
 * Words that say something is needed (en, de, es, fr, pt, it, nl, pl, sv, da/no, cs, tr, id, vi, ru, uk, el, hi,
 * zh, ja, ko): "needs", "requires", "must", "use … instead".
 */
const NEEDS = new RegExp(
  [
    "\\b(needs?|needed|requires?|required|must|has to|have to|only (works|passes|runs)|instead|use)\\b",
    '(?<![\\p{L}])(braucht|benötigt|erfordert|muss|stattdessen|necesita|requiere|hay que|en su lugar|besoin|nécessite|faut|au lieu|precisa|requer|em vez|serve|richiede|bisogna|invece|nodig|vereist|moet|in plaats|potrzeb\\p{L}*|wymaga|zamiast|behöver|kräver|måste|istället|kræver|trenger|må|i stedet|potřeb\\p{L}*|vyžaduje|musí|místo|gerek\\p{L}*|lazım|yerine|perlu|butuh|memerlukan|harus|cần|phải|нужн\\p{L}*|надо|необходим\\p{L}*|требует\\p{L}*|вместо|потрібн\\p{L}*|треба|замість|χρειάζ\\p{L}*|απαιτεί|αντί)(?![\\p{L}])',
    '(ज़रूरत|जरूरत|चाहिए|需要|必须|得先|先运行|改用|必要|しなければ|代わりに|필요|해야)',
  ].join('|'),
  'iu',
);

/** The line of the output that says the tool did not know the step (for a failure whose output has no error line). */
export function unknownStepLine(step: Step): string | undefined {
  return (step.output ?? '').split('\n').map((l) => l.trim()).find((l) => UNKNOWN_STEP.test(l));
}

/** Whitespace folded, backticks and quotes off, lower case: for finding a command in what the agent wrote. */
const fold = (t: string) => t.toLowerCase().replace(/[`'"“”]/g, ' ').replace(/\s+/g, ' ').trim();

/** The agent's sentences said after `after` (a position, `Said.at`), in order. */
function sentencesAfter(view: RolloutView, after: number): string[] {
  return view.said.filter((s) => s.role === 'assistant' && s.at > after).flatMap((s) => sentencesOf(s.text));
}

/** Whether `text` holds `words` as whole words (not `-u` inside `--update`). */
function holds(text: string, words: string): boolean {
  const w = fold(words);
  if (!w) return false;
  const esc = w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s(=:：])${esc}(?=$|[\\s).,;:!?。，；：、])`, 'u').test(fold(text));
}

/**
 * `pass` (a segment of a command that later worked) is the step `target` (a segment of the failed `failure`) was
 * for, by another program: both do the same kind of work (test, build, install, generate), and the failed tool
 * could not run that step at all, or a sentence of the agent's after the failure names the working command with a
 * need ("use …", "… instead", "needs …").
 */
export function samePurpose(view: RolloutView, failure: Step, target: Segment, pass: Segment): boolean {
  if (target.program === pass.program || target.category !== pass.category || !PURPOSE.has(target.category)) return false;
  if (unknownStep(failure)) return true;
  // Naming both is not enough ("`molecule syntax` and `ansible-lint` pass" after `molecule test` could not run: a fallback).
  return sentencesAfter(view, failure.at).some((s) => holds(s, pass.core) && NEEDS.test(s));
}

/**
 * The agent said, after the failure, that the command needs the options the working form added ("Tests need
 * -tags integration.", "Los tests necesitan `-tags integration`"): the options are how the tests run here.
 */
export function optionsSaidNeeded(view: RolloutView, failure: Step, before: Segment, after: Segment): boolean {
  if (before.program !== after.program) return false;
  const extra = addedArgs(before, after);
  if (!extra.some((a) => a.startsWith('-'))) return false;
  const added = extra.join(' ');
  return sentencesAfter(view, failure.at).some((s) => NEEDS.test(s) && (holds(s, added) || holds(s, after.core)));
}

export { NEEDS };
