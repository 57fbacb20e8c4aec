import type { RawMemory } from '../../types.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { unresolvedFailures } from './fixes.js';
import { clip, keywordsOf, quote } from './text.js';

const UNFINISHED: Record<string, string> = {
  max_turns: 'stopped at the turn limit',
  budget: 'stopped at the token budget',
  interrupted: 'interrupted',
  error: 'stopped by an error',
  unknown: 'the transcript ends without a session_end: the run crashed or was killed',
};

/**
 * A run that did not complete (a limit, an interrupt, an error, a crash) left work unfinished: one
 * `task_state` naming the task, the files touched so far, the failures it had not overcome, and the last
 * thing the run did, so that the next run picks it up instead of starting over.
 */
export function unfinishedTask(view: RolloutView): RawMemory[] {
  const reason = UNFINISHED[view.outcome];
  if (!reason) return [];
  const why = view.endError ? `${reason}: ${clip(view.endError, 160)}` : reason;
  const last = view.steps.at(-1);
  const lastCmd = last ? commandOf(last) : undefined;
  const lastStep = last
    ? lastCmd
      ? `\`${clip(lastCmd, 160)}\` (exit ${last.exitCode ?? 'unknown'})`
      : `${last.name} ${String(last.input.command ?? '')} ${String(last.input.path ?? '')}`.trim()
    : undefined;
  const files = view.filesChanged.length ? ` Files changed so far: ${view.filesChanged.slice(0, 8).join(', ')}.` : '';
  const lastNote = view.said.filter((s) => s.role === 'assistant').at(-1);
  const blocked = unresolvedFailures(view)
    .slice(0, 2)
    .map((f) => `\`${clip(f.command, 120)}\` failed${f.error ? `: ${quote(f.error)}` : ''}`);
  const task = clip(view.task, 300).replace(/[.\s]+$/, '');
  return [
    {
      kind: 'task_state',
      text:
        `Unfinished (${why}): ${task}.${files}` +
        (blocked.length ? ` Unresolved: ${blocked.join('; ')}.` : '') +
        (lastStep ? ` Last step: ${lastStep}.` : '') +
        (lastNote ? ` Last note: “${clip(lastNote.text, 200)}”` : ''),
      evidence: { lines: [...new Set([view.records[0]?.line ?? 1, ...unresolvedFailures(view).slice(0, 2).map((f) => f.step.callLine), ...(last ? [last.callLine] : [])])].sort((a, b) => a - b) },
      importance: 4,
      keywords: keywordsOf([view.task, ...view.filesChanged]),
    },
  ];
}
