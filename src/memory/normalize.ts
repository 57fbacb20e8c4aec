import { createHash } from 'node:crypto';

/**
 * Text normalization, entry ids and similarity for consolidation. An entry id is `m-` + 8 hex digits of the
 * sha256 of the normalized text, so the same lesson (up to case, whitespace, markup and end punctuation)
 * gets the same id in every consolidation.
 */

/** Lowercase, NFKC, markup (`*`, `` ` ``, `_` emphasis) and end punctuation gone, whitespace collapsed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[`*]+/g, '')
    .replace(/(^|\s)_+|_+(\s|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;:,]+$/u, '')
    .trim();
}

/** The stable id of an entry with this text: `m-` + 8 hex digits. */
export function entryId(text: string): string {
  return `m-${createHash('sha256').update(normalizeText(text)).digest('hex').slice(0, 8)}`;
}

/** sha256 hex of a string (for change detection). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const STOPWORDS = new Set(
  'a an the and or but if then else of to in on at by for with from into onto as is are was were be been being it its this that these those there here not no do does did so than too very can could should would will must may might when while before after use uses used using run runs only also just first once which what who how all any each every other same new now'.split(
    ' ',
  ),
);

/** Content words of a text: normalized, split on anything but letters, digits and `_ . : / @ + -`, stopwords out. */
export function contentTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of normalizeText(text).split(/[^\p{L}\p{N}_.:/@+-]+/u)) {
    const t = raw.replace(/^[.:/@+-]+|[.:/@+-]+$/g, '');
    if (t.length >= 2 && !STOPWORDS.has(t)) out.add(t);
  }
  return out;
}

/** Jaccard index |A∩B| / |A∪B| and overlap coefficient |A∩B| / min(|A|,|B|), both 0…1. */
export function similarity(a: Set<string>, b: Set<string>): { jaccard: number; overlap: number; shared: number } {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  const min = Math.min(a.size, b.size);
  return { jaccard: union ? shared / union : 0, overlap: min ? shared / min : 0, shared };
}

/**
 * Whether two lesson texts say the same thing: identical after normalization, or a high token overlap
 * (Jaccard ≥ 0.6, or one text's words almost all inside the other's, with at least 4 shared words).
 */
export function nearDuplicate(a: string, b: string): boolean {
  const ta = cachedTokens(a);
  const tb = cachedTokens(b);
  if (ta.norm === tb.norm) return true;
  const taskA = unfinishedTask(a);
  const taskB = taskA === null ? null : unfinishedTask(b);
  if (taskA !== null && taskB !== null) {
    // Two unfinished-work notes: of different tasks, two pieces of work (otherTasks); of one task, they differ in
    // the files and steps they name as the work went on, and are still one.
    if (taskA !== taskB) return false;
  } else if (otherIdentifiers(a, b)) return false;
  const s = similarity(ta.tokens, tb.tokens);
  return s.jaccard >= 0.6 || (s.overlap >= 0.85 && s.shared >= 4);
}

/**
 * The task an unfinished-work note is about (`Unfinished (why): TASK. Files changed… / Unresolved… / Last step…`,
 * phase 1's task-state wording), normalized; null for any other text.
 */
export function unfinishedTask(text: string): string | null {
  const m = /^Unfinished \([^)]*\): ([\s\S]*?)\.(?: Files changed so far:| Unresolved:| Findings \(| Waiting for| Last step:|$)/.exec(text);
  return m ? normalizeText(m[1]!) : null;
}

/**
 * Two unfinished-work notes of different tasks are two pieces of work however alike their words (trial 21 F2:
 * "interrupt TERM" and "interrupt INT", one last step apart, were merged and the first run's note was lost).
 */
export function otherTasks(a: string, b: string): boolean {
  const ta = unfinishedTask(a);
  const tb = ta === null ? null : unfinishedTask(b);
  return ta !== null && tb !== null && ta !== tb;
}

/** A token that names one concrete thing: a number, a version, a path, a flag, a file, a target (`check-c61`, `packages/api`). */
const IDENTIFIER = /\p{N}|[\p{L}\p{N}][_./:@+-][\p{L}\p{N}]/u;
/** The wrapper phase 1 puts around an agent's note: the run's task in it is not the lesson. */
const NOTE_WRAPPER = /^Noted by the agent at the end of a run \((?:[^()]|\([^()]*\))*\): /;

/**
 * Two lessons about different concrete things, however alike their words: each names an identifier (a number, a
 * path, a target) the other does not (trial 22: six runs' notes "for area c6N, run `make check-c6N` first" became
 * one entry and five areas were lost; "`npm run test:unit` in packages/api" and "… in packages/web").
 */
export function otherIdentifiers(a: string, b: string): boolean {
  const ta = cachedTokens(a.replace(NOTE_WRAPPER, '')).tokens;
  const tb = cachedTokens(b.replace(NOTE_WRAPPER, '')).tokens;
  const own = (x: Set<string>, y: Set<string>): boolean => [...x].some((t) => !y.has(t) && IDENTIFIER.test(t));
  return own(ta, tb) && own(tb, ta);
}

// Consolidation compares every pair of texts; tokenizing each once keeps it fast (bounded, cleared when full).
const CACHE_MAX = 8192;
const cache = new Map<string, { norm: string; tokens: Set<string> }>();
function cachedTokens(text: string): { norm: string; tokens: Set<string> } {
  let hit = cache.get(text);
  if (!hit) {
    if (cache.size >= CACHE_MAX) cache.clear();
    hit = { norm: normalizeText(text), tokens: contentTokens(text) };
    cache.set(text, hit);
  }
  return hit;
}
