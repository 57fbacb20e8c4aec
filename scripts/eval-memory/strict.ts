import { matches, rx, type RepoFigures } from './judge.js';
import type { Case, Lesson } from './labels.js';

/**
 * The stricter reading of an entry (issue 12): what the entry itself states, with text copied from tool
 * output taken out. A regex hit on a quoted error message or a pasted log line is not a lesson: the next
 * agent learns nothing from "`x` failed: “<the error>”" unless the entry also says what to do.
 *
 * Removed from the entry before the lesson patterns are tried:
 * - quoted spans (“…”, „…“, «…», 「…」, 『…』, "…") whose content occurs in a tool output of the repo's runs;
 * - blockquote lines (`> …`);
 * - any tool-output line of 24+ characters copied into the entry outside a code span.
 * Code spans (`` `…` ``) stay: a command the entry tells the reader to run is stated, even when a tool's
 * output also printed it.
 */
export function statedText(entry: string, outputs: ToolOutputs): string {
  const spans: string[] = [];
  // Park code spans so that the removals below never touch them.
  let text = entry.replace(/`[^`\n]+`/g, (m) => {
    spans.push(m);
    return `\u0000${spans.length - 1}\u0000`;
  });
  text = text
    .split('\n')
    .filter((l) => !/^\s*>/.test(l))
    .join('\n');
  text = text.replace(QUOTED, (whole, ...groups: unknown[]) => {
    const inner = groups.slice(0, QUOTE_PAIRS.length).find((g) => typeof g === 'string') as string | undefined;
    if (inner === undefined) return whole;
    const restored = inner.replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]!.slice(1, -1));
    return outputs.contains(restored) ? ' ' : whole;
  });
  for (const line of outputs.lines) if (line.length >= 24 && text.includes(line)) text = text.split(line).join(' ');
  return text.replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]!);
}

const QUOTE_PAIRS: Array<[string, string]> = [
  ['“', '”'],
  ['„', '“'],
  ['«', '»'],
  ['「', '」'],
  ['『', '』'],
  ['"', '"'],
];
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const QUOTED = new RegExp(QUOTE_PAIRS.map(([o, c]) => `${esc(o)}([^${esc(c)}\\n]{1,2000})${esc(c)}`).join('|'), 'g');

/** Every tool output of a repo's runs, searchable for copied text (whitespace and case folded). */
export class ToolOutputs {
  readonly lines: string[];
  private readonly folded: string;
  constructor(outputs: string[]) {
    this.lines = [...new Set(outputs.flatMap((o) => o.split('\n').map((l) => l.trim())).filter((l) => l.length >= 24))];
    this.folded = fold(outputs.join('\n'));
  }
  /** True when `text` (an ellipsis at either end ignored) occurs in some output; texts under 6 characters never do. */
  contains(text: string): boolean {
    const t = fold(text.replace(/^[…\s]+|[…\s]+$/g, '').replace(/\.\.\.$/, ''));
    if (t.length < 6) return false;
    // A quote may be cut (`…`) or joined from two lines: every part of it must be copied.
    return t.split(/\s*…\s*|\s+\/\s+/).filter((p) => p.length >= 6).every((p) => this.folded.includes(p));
  }
}

const fold = (s: string) => s.replace(/[“”"'`‘’]/g, '').replace(/\s+/g, ' ').toLowerCase();

/** A MEMORY.md entry as the judge sees it: its text and, when known, its kind (section). */
export type JudgedEntry = string | { kind: string; text: string };

/**
 * Which entry kinds can state a lesson of a kind (issue 12 item 7). What a repository is and how to work in it
 * (procedure, pitfall, fact) may be worded as any of the three — "`make gen` failed … what worked: `make
 * deps gen`" states the procedure — but a preference is only stated by a preference entry (a person's lasting
 * rule, not a failure that mentions the same command) and unfinished work only by a task_state entry.
 */
const KIND_GROUP: Record<string, string> = { procedure: 'repo', pitfall: 'repo', fact: 'repo', preference: 'preference', task_state: 'task_state' };

/** True when an entry of `entryKind` (undefined: unknown, any) may state a lesson of `lessonKind`. */
export function kindStates(entryKind: string | undefined, lessonKind: string): boolean {
  if (entryKind === undefined) return true;
  return (KIND_GROUP[entryKind] ?? entryKind) === (KIND_GROUP[lessonKind] ?? lessonKind);
}

/** The stricter figures of one repo's memory: the judge's counts, scored on what entries state. */
export type StrictFigures = Pick<RepoFigures, 'lessons' | 'captured' | 'missed' | 'entries' | 'junk' | 'junkEntries' | 'duplicates' | 'stale' | 'staleEntries'>;

/**
 * Judges entries by what they state (`statedText`): a current lesson is captured when one entry of a kind
 * that can state it (`kindStates`) matches it in its own words; every entry is either a lesson (matches at least one lesson of the repo) or junk;
 * duplicates are entries beyond the first stating only the same lesson (lessons sharing a `dedupe_key`
 * are one lesson); stale entries state a superseded fact without its replacement.
 */
export function judgeStrict(cases: Case[], judged: JudgedEntry[], outputs: ToolOutputs): StrictFigures {
  const entries = judged.map((e) => (typeof e === 'string' ? e : e.text));
  const kinds = judged.map((e) => (typeof e === 'string' ? undefined : e.kind));
  const all = cases.flatMap((c) => c.labels.lessons.map((l) => ({ run: c.labels.id, lesson: l })));
  const superseded = new Set(all.flatMap((x) => x.lesson.supersedes ?? []));
  const current = all.filter((x) => !superseded.has(`${x.run}:${x.lesson.id}`));
  const stated = entries.map((e) => statedText(e, outputs));
  const group = (x: { run: string; lesson: Lesson }) => x.lesson.dedupe_key ?? `${x.run}:${x.lesson.id}`;
  const states = (i: number, lesson: Lesson) => kindStates(kinds[i], lesson.kind) && matches(lesson, stated[i]!);
  const missed = current.filter((x) => !stated.some((_, i) => states(i, x.lesson))).map((x) => `${x.run}:${x.lesson.id}`);
  const junkEntries: string[] = [];
  const byGroup = new Map<string, number>();
  stated.forEach((s, i) => {
    const hits = all.filter((x) => states(i, x.lesson));
    if (hits.length === 0) {
      junkEntries.push(entries[i]!);
      return;
    }
    const groups = new Set(hits.map(group));
    if (groups.size === 1) {
      const g = [...groups][0]!;
      byGroup.set(g, (byGroup.get(g) ?? 0) + 1);
    }
  });
  const duplicates = [...byGroup.values()].reduce((a, n) => a + Math.max(0, n - 1), 0);
  const staleEntries = new Set<string>();
  for (const x of all) {
    for (const p of x.lesson.stale_patterns ?? []) {
      stated.forEach((s, i) => {
        if (rx(p).test(s) && !matches(x.lesson, s)) staleEntries.add(entries[i]!);
      });
    }
  }
  return {
    lessons: current.length,
    captured: current.length - missed.length,
    missed,
    entries: entries.length,
    junk: junkEntries.length,
    junkEntries,
    duplicates,
    stale: staleEntries.size,
    staleEntries: [...staleEntries],
  };
}
