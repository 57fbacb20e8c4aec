import type { Case, Lesson } from './labels.js';

/** What the judge found for one repo's memory (after its last run). Counts, not ratios. */
export interface RepoFigures {
  repo: string;
  runs: number;
  /** Lessons still current after the last run (superseded ones left out). */
  lessons: number;
  captured: number;
  /** Ids `<run>:<lesson>` of the current lessons no entry captured. */
  missed: string[];
  entries: number;
  /** Entries matching no lesson of the repo. */
  junk: number;
  junkEntries: string[];
  duplicates: number;
  stale: number;
  staleEntries: string[];
  /** `<file>: <string>` for every forbidden string found under memories/. */
  forbidden: string[];
  /** The same in the stored transcripts (sessions/): secrets must not be there; injected text is on record. */
  forbiddenInSessions: string[];
  memoryMdBytes: number;
  memoryMdTokens: number;
}

/** A label pattern as a case-insensitive regular expression. */
export const rx = (p: string) => new RegExp(p, 'i');
/** True when `entry` matches one of the lesson's `must_match_any` patterns (case-insensitive). */
export const matches = (lesson: Lesson, entry: string) => lesson.must_match_any.some((p) => rx(p).test(entry));

/**
 * Judges MEMORY.md entries against a repo's labels (fixtures README): recall of the lessons still current
 * (a lesson is captured when one entry matches one of its regexes), junk (entries matching no lesson of the
 * repo), duplicates (per `dedupe_key`, entries beyond the first that match no other lesson), stale leftovers
 * (an entry matching a `stale_patterns` regex but none of the superseding lesson's patterns).
 */
export function judgeEntries(repo: string, cases: Case[], entries: string[]): Omit<RepoFigures, 'forbidden' | 'forbiddenInSessions' | 'memoryMdBytes' | 'memoryMdTokens'> {
  const all = cases.flatMap((c) => c.labels.lessons.map((l) => ({ run: c.labels.id, lesson: l })));
  const superseded = new Set(all.flatMap((x) => x.lesson.supersedes ?? []));
  const current = all.filter((x) => !superseded.has(`${x.run}:${x.lesson.id}`));
  const missed = current.filter((x) => !entries.some((e) => matches(x.lesson, e))).map((x) => `${x.run}:${x.lesson.id}`);
  const junkEntries = entries.filter((e) => !all.some((x) => matches(x.lesson, e)));

  let duplicates = 0;
  const keys = new Set(all.map((x) => x.lesson.dedupe_key).filter((k): k is string => !!k));
  for (const key of keys) {
    const keyed = all.filter((x) => x.lesson.dedupe_key === key);
    const others = all.filter((x) => x.lesson.dedupe_key !== key);
    const hits = entries.filter((e) => keyed.some((x) => matches(x.lesson, e)) && !others.some((x) => matches(x.lesson, e)));
    duplicates += Math.max(0, hits.length - 1);
  }
  const staleEntries = new Set<string>();
  for (const x of all) {
    for (const p of x.lesson.stale_patterns ?? []) {
      for (const e of entries) if (rx(p).test(e) && !matches(x.lesson, e)) staleEntries.add(e);
    }
  }
  return {
    repo,
    runs: cases.length,
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

/** Every forbidden string of any case found in any of `files` (path → text). */
export function findForbidden(cases: Case[], files: Map<string, string>): string[] {
  const strings = [...new Set(cases.flatMap((c) => c.labels.forbidden))];
  const found: string[] = [];
  for (const [file, text] of files) for (const s of strings) if (text.includes(s)) found.push(`${file}: ${s.slice(0, 12)}…`);
  return found;
}
