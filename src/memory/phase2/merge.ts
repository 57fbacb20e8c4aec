import type { MemoryKind } from '../types.js';
import { contentTokens, entryId, nearDuplicate, normalizeText } from '../normalize.js';
import type { RolloutInput } from './inputs.js';

/** A lesson after merging near-duplicate raw memories: the newest wording, every source. */
export interface Candidate {
  kind: MemoryKind;
  text: string;
  /** Rollout ids, newest first. */
  sources: string[];
  importance: number;
  /** ISO time of the newest source rollout. */
  at: string;
  /** Position of the newest source rollout, newest first (0 = the newest rollout): orders equal times too. */
  order: number;
  /** How many raw memories said this (repetition is a signal). */
  count: number;
  /** Entry ids of every wording merged in (so an existing entry is found whichever wording it had). */
  ids: Set<string>;
  keywords: string[];
}

/**
 * Merges raw memories (rollouts newest first) into candidates: a raw memory joins the first candidate that
 * says the same thing (same kind and `nearDuplicate`, or the same normalized text in any kind); otherwise it
 * starts a new one. Because input is newest first, every candidate carries its newest wording.
 */
export function mergeRawMemories(rollouts: RolloutInput[]): Candidate[] {
  const out: Candidate[] = [];
  for (const [order, r] of rollouts.entries()) {
    for (const m of r.memories) {
      const norm = normalizeText(m.text);
      const hit = out.find((c) => (c.kind === m.kind ? nearDuplicate(c.text, m.text) : normalizeText(c.text) === norm));
      if (hit) {
        if (!hit.sources.includes(r.rolloutId)) hit.sources.push(r.rolloutId);
        hit.importance = Math.max(hit.importance, m.importance);
        hit.count += 1;
        hit.ids.add(entryId(m.text));
        for (const k of m.keywords) if (!hit.keywords.includes(k)) hit.keywords.push(k);
        // An older wording that says strictly more (every command and file of the newer one, and others) is
        // the whole chain; the newer run only confirmed part of it (issue 12: "a fix is the whole chain").
        if (saysMore(m.text, hit.text)) hit.text = m.text;
      } else {
        out.push({
          kind: m.kind,
          text: m.text,
          sources: [r.rolloutId],
          importance: m.importance,
          at: r.time,
          order,
          count: 1,
          ids: new Set([entryId(m.text)]),
          keywords: [...m.keywords],
        });
      }
    }
  }
  return out;
}

/**
 * Whether `a` names every command and file of `b`, and more. Code spans are compared command by command
 * (split at `&&`, `||`, `;`), so `apt-get install x && ./gradlew --stop` in one span and the same two commands
 * in two spans are the same steps.
 */
function saysMore(a: string, b: string): boolean {
  const named = (t: string) =>
    new Set(
      [...t.matchAll(/`([^`]+)`|\b([\w-]+\.(?:properties|toml|ya?ml|json|xml|cfg|ini|conf))\b/g)].flatMap((x) =>
        x[1] !== undefined ? x[1].split(/\s*(?:&&|\|\||;)\s*/).map((c) => c.trim()).filter(Boolean) : [x[2]!.trim()],
      ),
    );
  const na = named(a);
  const nb = named(b);
  const covered = (x: string, set: Set<string>) => set.has(x) || [...set].some((y) => y.startsWith(`${x} `) || y.includes(x));
  return [...nb].every((x) => covered(x, na)) && [...na].some((y) => !covered(y, nb));
}

/** Token set of a candidate's text without its code spans (the "what is this about" part). */
export function proseTokens(text: string): Set<string> {
  return contentTokens(text.replace(/`[^`]*`/g, ' '));
}

export { contentTokens };
