import type { RawMemory } from '../../types.js';
import { splitCommand } from '../commands.js';
import { commandOf, isEdit, succeeded, type RolloutView, type Said } from '../rollout.js';
import { CHANGED, ONE_OFF, clauses } from './durable.js';
import { clip, keywordsOf } from './text.js';

/**
 * A rule the user typed mid-run in words no list of `durable.ts` knows, recognised by what the run did with it
 * (issue 12: "lasting" from structure, not from words). A clause of a mid-run message is kept as a preference
 * when it names a tool setting in code form — a code span (`cargo test --features headless`) or a word
 * shaped like one (`--std=08`, `native_sim`, `seed=4242`), never a file path — and
 *  - a later command that succeeded runs it (in a segment that does work, not one that only looks around),
 *    or, for a flag, a later edit writes it into the project (a Makefile's flags); and
 *  - the agent's final message names it again (the agent took it as how this repository works).
 * A question and a clause said for this run (`ONE_OFF`) are never kept, nor anything of a message that states
 * the repository changed (its "use X now" belongs to that fact, `changes.ts`). An identifier the task's code is
 * renamed to fails the first test: a rename is applied by edits and looked up with grep, never run.
 *
 * Returns one `preference` per message (importance 5), the clause quoted and the command or edited line that
 * applied it beside it in code form, so that a rule in a language the next agent reads poorly still says what
 * to type. Empty when no clause qualifies.
 */
export function adoptedRules(view: RolloutView, message: Said): RawMemory[] {
  const final = [...view.said].reverse().find((s) => s.role === 'assistant' && s.at > message.at)?.text ?? '';
  const parts = clauses(message.text);
  // "We switched to X. Run `x test` instead": what to use now after a change is the change's fact (`changes.ts`).
  if (parts.some((c) => CHANGED.test(c))) return [];
  const kept: Array<{ clause: string; applied: string }> = [];
  for (const clause of parts) {
    if (/[?？]\s*$/.test(clause) || ONE_OFF.test(clause)) continue;
    for (const setting of settingsNamed(clause)) {
      if (!final.includes(setting)) continue;
      const applied = appliedLater(view, message.at, setting);
      if (applied) {
        kept.push({ clause, applied });
        break;
      }
    }
  }
  if (kept.length === 0) return [];
  const said = kept.map((k) => `“${clip(k.clause, 400)}” (applied as \`${clip(k.applied, 160)}\`)`).join(' ');
  return [
    {
      kind: 'preference',
      text: `The user said mid-run: ${said}`,
      evidence: { lines: [message.line], quote: clip(message.text.trim(), 200) },
      importance: 5,
      keywords: keywordsOf([kept.map((k) => k.applied).join(' '), kept.map((k) => k.clause).join(' ')]),
    },
  ];
}

/** Code spans of a clause, then words shaped like a setting: a flag, `key=value`, `snake_case`. Never a path or a file name. */
function settingsNamed(clause: string): string[] {
  const spans = [...clause.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim());
  const bare = clause.replace(/`[^`]*`/g, ' ').split(/[\s,;:()“”"'«»„]+/).map((w) => w.replace(/[.。!]+$/, ''));
  const shaped = bare.filter((w) => /^--?[a-z][\w-]*(=\S+)?$|^[a-z][\w.-]*=\S+$|^[a-z][a-z0-9]*_[a-z0-9_]+$/i.test(w));
  return [...spans, ...shaped].filter((s) => s.length >= 3 && !/\//.test(s) && !/^[\w-]+\.[a-z][a-z0-9]{0,4}$/i.test(s));
}

/** The text of the later command segment that ran `setting` and succeeded, or of the edited line that wrote a flag. */
function appliedLater(view: RolloutView, after: number, setting: string): string | undefined {
  for (const step of view.steps) {
    if (step.at < after) continue;
    const cmd = commandOf(step);
    if (cmd && succeeded(step)) {
      const seg = splitCommand(cmd).find((s) => !s.piped && s.category !== 'inspect' && s.category !== 'shell' && s.text.includes(setting));
      if (seg) return seg.text;
    }
    if (isEdit(step) && setting.startsWith('-')) {
      const written = String(step.input.new_str ?? step.input.file_text ?? '');
      const line = written.split('\n').find((l) => l.includes(setting));
      if (line) return line.trim();
    }
  }
  return undefined;
}
