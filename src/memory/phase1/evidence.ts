import { commandOf, type RolloutView } from './rollout.js';

/**
 * A sentence of the agent's final message that reports what this run observed about its environment, known
 * by what it cites rather than by its wording (so in any human language): a code span that is part of a
 * command the run ran (`pants`, `uv python install 3.11`, `-Dsimd=enabled`), an absolute path outside the
 * workspace (/opt/…, /proc/…), or a version number a tool output printed. Left out, whatever it cites:
 * a sentence that names a file the run changed (that is the task's state), a question (the open question
 * is the task's), and a numbered plan ("(1) … (2) …"). Returns false for text under 12 characters.
 */
export function citesRunEvidence(view: RolloutView, sentence: string): boolean {
  if (sentence.length < 12 || /[?？]\s*$/.test(sentence)) return false;
  if (/\(\s*[1-9]\s*\)|(^|\s)[1-9][.)]\s.*\s[2-9][.)]\s/.test(sentence)) return false;
  if (namesChangedFile(view, sentence)) return false;
  const commands = view.steps.map(commandOf).filter((c): c is string => !!c);
  const spans = [...sentence.matchAll(/`([^`\n]{3,})`/g)].map((m) => m[1]!.trim());
  if (spans.some((s) => commands.some((c) => c.includes(s)))) return true;
  const outside = [...sentence.matchAll(/(?<![\w.~:/-])\/(?!workspace\b)[\w.-]+\/[\w./-]*/g)];
  if (outside.length > 0) return true;
  const outputs = view.steps.map((s) => s.output ?? '').join('\n');
  return [...sentence.matchAll(/(?<![\w.])\d+\.\d+(?:\.\d+)*(?![\w.]*\w)/g)].some((m) => new RegExp(`(?<![\\w.])${m[0].replace(/\./g, '\\.')}(?![\\d])`).test(outputs));
}

/** The sentence names a file of `filesChanged` (by its path in the workspace, or by its base name with an extension). */
function namesChangedFile(view: RolloutView, sentence: string): boolean {
  return view.filesChanged.some((f) => {
    const base = f.split('/').at(-1)!;
    return sentence.includes(f) || (/\.\w+$/.test(base) && base.length >= 5 && sentence.includes(base));
  });
}
