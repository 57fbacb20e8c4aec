import { similarity } from '../normalize.js';
import type { Candidate } from './merge.js';
import { proseTokens } from './merge.js';

/**
 * "The newer fact wins" (issue 5, phase 2): finds older candidates that a newer one contradicts.
 *
 * 1. Same subject, same tool, other arguments: the prose around the code spans is nearly the same (Jaccard
 *    ≥ 0.6 on at least two words outside backticks) and a code span of each starts with the same word but they
 *    differ — "build with `cmake --build build -j16`" vs "build with `cmake --build build -j4`". (Another
 *    tool altogether is not enough: a repository may well install its frontend with npm and its backend with pip.)
 * 2. The newer text names the older one's term as outdated: "moved/switched/migrated from X to Y",
 *    "`X` now fails / no longer works / is outdated", "instead of `X`", "no longer uses X". An older entry
 *    that mentions X (as a word or a code span) and not Y is stale.
 *
 * 3. Same command, other tool: a code span of the older entry equals one of the newer entry's except for its
 *    first word — "`npm run test:unit`" vs "`pnpm run test:unit`" (the repository changed its runner).
 *
 * Preferences are never superseded by rule (a person said them); only a newer preference merges into them.
 */

interface StaleTerm {
  term: string;
  replacement?: string;
}

const TERM = '`?([\\w.@:/+-]+)`?';

/** A bare word ends before sentence punctuation. */
function clean(term: string): string {
  return term.replace(/[.,;:]+$/, '');
}

/** Terms the text declares outdated. Exported for tests. */
export function staleTerms(text: string): StaleTerm[] {
  const out: StaleTerm[] = [];
  for (const m of text.matchAll(new RegExp(`\\b(?:moved|switched|migrated|changed|went|converted)\\s+(?:\\w+\\s+)?from\\s+${TERM}\\s+to\\s+${TERM}`, 'gi'))) {
    out.push({ term: clean(m[1]!), replacement: clean(m[2]!) });
  }
  for (const m of text.matchAll(/`([^`]+)`\s+(?:now\s+|also\s+)?(?:fails|failed|errors|no longer works|does not work|doesn't work|is (?:now )?(?:outdated|stale|obsolete|deprecated|gone|removed|wrong))/gi)) {
    out.push({ term: m[1]! });
  }
  for (const m of text.matchAll(/\b(?:instead of|rather than|replaces|replaced)\s+`([^`]+)`/gi)) out.push({ term: m[1]! });
  for (const m of text.matchAll(new RegExp(`\\bno longer\\s+(?:uses?|using|needs?)\\s+${TERM}`, 'gi'))) out.push({ term: clean(m[1]!) });
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mentions(text: string, term: string): boolean {
  return new RegExp(`(?<![\\w@/.-])${escapeRe(term)}(?![\\w@/-])`, 'i').test(text);
}

function codeSpans(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim().toLowerCase()));
}

/** Whether some command of `older` is a command of `newer` run by another tool (same words after the first). */
function swappedTool(newer: Set<string>, older: Set<string>): boolean {
  const split = (c: string): [string, string] => {
    const words = c.split(/\s+/);
    return [words[0]!, words.slice(1).join(' ')];
  };
  for (const o of older) {
    const [ot, orest] = split(o);
    if (!orest || orest.length < 6 || !/[a-z]/.test(orest)) continue;
    for (const n of newer) {
      const [nt, nrest] = split(n);
      if (nrest === orest && nt !== ot && !newer.has(o)) return true;
    }
  }
  return false;
}

function sameRollouts(a: Candidate, b: Candidate): boolean {
  return a.sources.some((s) => b.sources.includes(s));
}

/**
 * Returns the candidates that survive, and for each dropped one the candidate that superseded it.
 * `a` supersedes `b` only when `a` is strictly newer and they share no source rollout.
 */
export function dropSuperseded(candidates: Candidate[]): { kept: Candidate[]; superseded: Array<{ stale: Candidate; by: Candidate }> } {
  const superseded: Array<{ stale: Candidate; by: Candidate }> = [];
  const stale = new Set<Candidate>();
  const terms = new Map(candidates.map((c) => [c, staleTerms(c.text)]));
  for (const a of candidates) {
    for (const b of candidates) {
      if (a === b || stale.has(b) || b.kind === 'preference' || !(a.order < b.order) || sameRollouts(a, b)) continue;
      let hit = false;
      for (const t of terms.get(a)!) {
        if (mentions(b.text, t.term) && !(t.replacement && mentions(b.text, t.replacement))) hit = true;
      }
      if (!hit && swappedTool(codeSpans(a.text), codeSpans(b.text))) hit = true;
      if (!hit && a.kind === b.kind) {
        const ca = codeSpans(a.text);
        const cb = codeSpans(b.text);
        const first = (c: string): string => c.split(/\s+/)[0]!;
        const sameTool = [...cb].some((o) => !ca.has(o) && [...ca].some((n) => first(n) === first(o) && n !== o));
        const pa = proseTokens(a.text);
        const pb = proseTokens(b.text);
        if (sameTool && pa.size >= 2 && pb.size >= 2 && similarity(pa, pb).jaccard >= 0.6) hit = true;
      }
      if (hit) {
        stale.add(b);
        superseded.push({ stale: b, by: a });
      }
    }
  }
  return { kept: candidates.filter((c) => !stale.has(c)), superseded };
}
