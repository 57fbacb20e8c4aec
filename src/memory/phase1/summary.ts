import type { RawMemory, RolloutSummary } from '../types.js';
import { essentialCommand, mainSegment, splitCommand } from './commands.js';
import { clip } from './deterministic/text.js';
import { looksLikeInstruction } from './error-lines.js';
import { runFindings, stoppedOnPurpose } from './findings.js';
import { segmentOutcome } from './outcome.js';
import { commandOf, type RolloutView } from './rollout.js';
import { filesDeleted } from './deleted.js';
import { filesMissing } from './missing.js';

const MAX_TRIED = 25;

/**
 * The rollout summary from the transcript's structure: the task, the commands run with their exit codes
 * (repeats folded), what worked (the lessons' texts, else the commands that passed), the outcome and the
 * files changed. Used by the deterministic path, and by the model path for the fields the model left empty.
 */
export function summarizeRollout(view: RolloutView, memories: RawMemory[]): RolloutSummary {
  const tried: string[] = [];
  const passed: string[] = [];
  for (const step of view.steps) {
    const cmd = commandOf(step);
    if (!cmd) continue;
    const segs = splitCommand(cmd);
    const main = mainSegment(segs);
    if (!main || main.category === 'inspect' || main.category === 'vcs') continue;
    const shown = clip(essentialCommand(segs, main), 160);
    const code = step.exitCode === undefined || step.exitCode === null ? (step.resultLine ? '?' : 'no result') : String(step.exitCode);
    // `npm test | tail` exits 0 even when tests failed: the segment's own outcome decides what "worked".
    const outcome = segmentOutcome(step, segs, main);
    const hidden = code === '0' && outcome === 'failed' ? ' (but its output shows a failure)' : '';
    const entry = `\`${shown}\` → exit ${code}${hidden}`;
    if (tried.at(-1) !== entry && tried.length < MAX_TRIED) tried.push(entry);
    if (outcome === 'passed' && ['test', 'build', 'install', 'system', 'generate'].includes(main.category)) {
      if (!passed.includes(`\`${shown}\``)) passed.push(`\`${shown}\``);
    }
  }
  const worked = memories.filter((m) => m.kind === 'procedure' || m.kind === 'pitfall').map((m) => m.text);
  return {
    task: clip(view.task, 2000),
    tried,
    worked: worked.length ? worked : passed.slice(-5),
    outcome: describeOutcome(view),
    // A file the run deleted is listed as "path (deleted)": phase 2 retires entries that tell to make or use it.
    // A file a command of the run named and did not find is listed as "path (missing)": it moved, or went.
    filesChanged: [
      ...view.filesChanged,
      ...filesDeleted(view).filter((p) => !view.filesChanged.includes(p)).map((p) => `${p} (deleted)`),
      ...filesMissing(view).filter((p) => !filesDeleted(view).includes(p)).map((p) => `${p} (missing)`),
    ],
  };
}

function describeOutcome(view: RolloutView): string {
  const finalWords = view.said.filter((s) => s.role === 'assistant').at(-1);
  const base = view.outcome === 'unknown' ? 'unknown (the transcript has no session_end)' : view.outcome;
  if (!finalWords) return base;
  if (view.outcome !== 'completed') {
    const found = runFindings(view, 600);
    const how = view.outcome === 'error' && stoppedOnPurpose(view) ? `${base}: the agent stopped on purpose` : base;
    return found.length ? `${how}. ${found.join(' ')}` : how;
  }
  // The agent's closing words, minus any sentence that passes on an instruction it read somewhere. Markdown
  // headings go: they are the layout a framework's prompt asked for ("## Acme summary"), not what was found.
  const said = finalWords.text
    .replace(/^[ \t]{0,3}#{1,6}[ \t].*$/gm, '')
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?])\s+/)
    .filter((s) => !looksLikeInstruction(s))
    .join(' ');
  return said ? `${base}: ${clip(said, 400)}` : base;
}
