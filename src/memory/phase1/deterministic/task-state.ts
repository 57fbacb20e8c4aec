import type { RawMemory } from '../../types.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { unresolvedFailures } from './fixes.js';
import { lastAssistantText, runFindings, sentencesOf, stoppedOnPurpose } from '../findings.js';
import { clip, keywordsOf, quote } from './text.js';
import { constraintSentences } from './constraints.js';

const UNFINISHED: Record<string, string> = {
  max_turns: 'stopped at the turn limit',
  budget: 'stopped at the token budget',
  interrupted: 'interrupted',
  error: 'stopped by an error',
  unknown: 'the transcript ends without a session_end: the run crashed or was killed',
};

/**
 * A task that asks the agent to stop before a step: only a plan, a preview or a dry run, without applying,
 * deploying, merging or pushing (en, de, es, fr, pt, it, nl, zh, ja).
 */
const STOP_WHERE_ASKED =
  /\b(do not|don't|dont|never|without) (apply|deploy|merge|push|run the migration)|\b(only|just) (the )?(plan|preview|dry[- ]run)\b|\bshow me the plan\b|\bnicht (anwenden|ausrollen|deployen|mergen|pushen)|\bnur (den )?plan\b|\bno (apliques|despliegues|hagas merge)|\bsolo el plan\b|\bne (pas )?(appliquer|déployer|merger|pousser)|\bn'applique pas\b|\bnão (aplique|faça deploy)|\bnon (applicare|fare deploy)|\bniet (toepassen|deployen|mergen)|(不要|别|先别)(应用|部署|合并|推送|apply)|只(要|看)?(计划|plan)|(適用|デプロイ|マージ|プッシュ|apply)(しないで|はしないで)|プランだけ/i;

/**
 * A run that did not complete (a limit, an interrupt, an error, a crash) left work unfinished: one
 * `task_state` naming the task, how it stopped (a limit, an error, or the agent on purpose), the files touched
 * so far, the failures it had not overcome, what it found in its own whole sentences (root cause, constraints,
 * dead ends, plan: `runFindings`, within a budget, never cut mid-sentence) and the last thing it did, so that
 * the next run picks it up instead of starting over.
 */
export function unfinishedTask(view: RolloutView): RawMemory[] {
  const reason = UNFINISHED[view.outcome];
  if (!reason) return [];
  // A run that "failed" on its own last message stopped on purpose; saying "stopped by an error" would be wrong.
  // Unless the run records what stopped it (an exception, a limit the harness hit after that message): then the
  // wording follows that error (new-user trial 28: "RuntimeError: max iterations" was called "on purpose").
  const onPurpose = view.outcome === 'error' && !view.endError && stoppedOnPurpose(view);
  // "Show me the plan; do not apply": the agent stopped where the task told it to, with nothing left failing.
  if (onPurpose && STOP_WHERE_ASKED.test(view.task) && unresolvedFailures(view).length === 0) return [];
  const base = onPurpose ? 'the agent stopped on purpose' : reason;
  const why = view.endError && !onPurpose ? `${base}: ${clip(view.endError, 160)}` : base;
  // Causes and constraints have their own `fact` entry (`runConstraints`): said once, where they outlive the task.
  const constraints = new Set(constraintSentences(view));
  const found = runFindings(view).filter((s) => !constraints.has(s));
  // A run stopped before it did anything (Ctrl-C at start, an endpoint that never answered) left no work to
  // pick up: a note would only repeat the task, in every later prompt.
  if (view.steps.length === 0 && view.filesChanged.length === 0 && found.length === 0) return [];
  const last = view.steps.at(-1);
  const lastCmd = last ? commandOf(last) : undefined;
  const lastStep = last
    ? lastCmd
      ? `\`${clip(lastCmd, 160)}\` (exit ${last.exitCode ?? 'unknown'})`
      : `${last.name} ${String(last.input.command ?? '')} ${String(last.input.path ?? '')}`.trim()
    : undefined;
  // Cut right after a command (no word from the agent since): what that command printed is the newest thing
  // the run learnt ("MULTIPOINT … EPSG:25830"), and nothing else holds it.
  const printed = last && lastCmd && !onPurpose && !view.said.some((x) => x.role === 'assistant' && x.at > last.at) ? tailLines(last.output ?? '', 3) : [];
  const files = view.filesChanged.length ? ` Files changed so far: ${view.filesChanged.slice(0, 8).join(', ')}.` : '';
  const blocked = unresolvedFailures(view)
    .slice(0, 2)
    .map((f) => `\`${clip(f.command, 120)}\` failed${f.error ? `: ${quote(f.error)}` : ''}`);
  const task = clip(view.task, 300).replace(/[.。\s]+$/u, '');
  const asked = openQuestions(view);
  return [
    {
      kind: 'task_state',
      text:
        `Unfinished (${why}): ${task}.${files}` +
        (blocked.length ? ` Unresolved: ${blocked.join('; ')}.` : '') +
        (found.length ? ` Findings (the agent's words): “${found.join(' ')}”` : '') +
        (asked.length ? ` Waiting for the user's answer to: “${asked.join(' ')}”` : '') +
        (lastStep && !onPurpose ? ` Last step: ${lastStep}${printed.length ? `, which printed ${printed.map(quote).join(' / ')}` : ''}.` : ''),
      evidence: { lines: [...new Set([view.records[0]?.line ?? 1, ...unresolvedFailures(view).slice(0, 2).map((f) => f.step.callLine), ...(last ? [last.callLine] : [])])].sort((a, b) => a - b) },
      importance: 4,
      keywords: keywordsOf([view.task, ...view.filesChanged]),
    },
  ];
}

/** The last `n` lines of an output that say something (at most 120 characters each), in order. */
function tailLines(output: string, n: number): string[] {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => /[\p{L}\p{N}]{2,}/u.test(l) && !/^\[exit code: -?\d+\]$/.test(l));
  return lines.slice(-n).map((l) => clip(l, 120));
}

/**
 * The questions the agent ended its run on ("Should I exclude the package in mypy (`ignore_errors` in setup.cfg),
 * or do you want them fixed?"): what the next run must settle with the user before going on. At most two,
 * within 300 characters, whole, when the run stopped on its own message.
 */
function openQuestions(view: RolloutView): string[] {
  if (!stoppedOnPurpose(view)) return [];
  const final = lastAssistantText(view)?.text ?? '';
  const out: string[] = [];
  let used = 0;
  for (const s of sentencesOf(final).filter((x) => /[?？]\s*$/.test(x))) {
    if (out.length === 2 || used + s.length > 300) break;
    used += s.length + 1;
    out.push(s);
  }
  return out;
}
