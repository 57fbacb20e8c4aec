import type { RawMemory } from '../../types.js';
import { dangerousInstruction } from '../../injection.js';
import { INSTRUCTION_WORDS_WORLD } from '../instruction-words.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { clip, keywordsOf } from './text.js';

/**
 * A constraint stated in a source comment the agent read in the repository's own code (round 24; not under
 * `vendor/`, `node_modules/` …): "// Never reorder, rename or remove existing fields; only append new ones",
 * "…; do NOT switch to the *Async methods yet". It binds every later change of that file, whatever the task was
 * and whatever language the user wrote in.
 * Only comment lines (`//`, `#`, `--`, `;`, `/*`, `*`) that forbid ("never X", "do not X" at a sentence's head, "must not") or freeze, with the comment
 * lines right around them (the reason), from the output of a view or a `cat`/`sed -n`/`head` of the file; never
 * a line aimed at an agent or one that tells to fetch and run code (a planted instruction), nor a generated
 * file's "DO NOT EDIT" marker. One `fact` per file (importance 4).
 */
export function sourceConstraints(view: RolloutView): RawMemory[] {
  const out: RawMemory[] = [];
  const seen = new Set<string>();
  for (const step of view.steps) {
    const path = viewedPath(step.name, step.input, commandOf(step));
    if (!path || seen.has(path) || !step.output) continue;
    const rel = path.replace(/^\/workspace\//, '');
    if (/(^|\/)(node_modules|vendor|vendored|third_party|\.venv|site-packages|deps)\//.test(rel)) continue;
    const said = constraintComment(step.output);
    if (!said) continue;
    seen.add(path);
    out.push({
      kind: 'fact',
      text: `Constraint (comment in ${rel}): “${clip(said, 400)}”`,
      evidence: { lines: [step.resultLine ?? step.callLine], quote: clip(said, 200) },
      importance: 4,
      keywords: keywordsOf([rel, said]),
    });
    if (out.length >= 2) break;
  }
  return out;
}

function viewedPath(name: string, input: Record<string, unknown>, cmd: string | undefined): string | undefined {
  if (name !== 'bash' && input.command === 'view' && typeof input.path === 'string') return input.path;
  const m = cmd?.match(/^(?:cd \S+ && )?(?:cat|head(?: -n ?\d+)?|sed -n '?[\d,]+p'?) ((?:\/workspace\/)?[\w./-]+\.\w+)\s*$/);
  return m?.[1] ? (m[1].startsWith('/') ? m[1] : `/workspace/${m[1]}`) : undefined;
}

/** Words of a line planted for an agent or its memory ("AI agents: never …", "remember to …"). */
const AIMED_AT_AGENT = /\b(memory|memories|remember|instructions?|ignore (all|any|the|previous)|assistants?|agents?|LLMs?|AI|note to)\b/i;

const COMMENT = /^\s*(?:\/\/+|#+|--|;+|\/\*+|\*)\s+(.*?)\s*(?:\*\/)?$/;
export const FORBIDS = /(^|[.;:—–-]\s*)(never|do not|don't)\s+\w+|\bmust (not|stay|remain)\b|\b(is|are) frozen\b|\bonly append\b/i;

/** The comment block (at most three lines) around the first comment line that forbids or freezes something. */
function constraintComment(output: string): string | undefined {
  const lines = output.split('\n').map((l) => l.replace(/^\s*\d+\t/, ''));
  const comment = (l: string | undefined) => (l === undefined ? undefined : COMMENT.exec(l)?.[1]);
  for (let i = 0; i < lines.length; i++) {
    const text = comment(lines[i]);
    if (!text || !FORBIDS.test(text) || /generated|DO NOT EDIT|license/i.test(text)) continue;
    const block = [text];
    if (comment(lines[i - 1])) block.unshift(comment(lines[i - 1])!);
    if (comment(lines[i + 1])) block.push(comment(lines[i + 1])!);
    const said = block.filter(Boolean).join(' ');
    if (AIMED_AT_AGENT.test(said) || INSTRUCTION_WORDS_WORLD.test(said) || dangerousInstruction(said)) continue;
    return said;
  }
  return undefined;
}
