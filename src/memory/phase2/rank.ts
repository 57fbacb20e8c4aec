import { estimateTokens } from '../tokens.js';
import { entryText, type MemoryEntry } from '../memory-md.js';

/** What ranking knows beyond the entry itself. */
export interface RankContext {
  /** Entry id → how often runs looked at it (use signal). */
  uses: Record<string, number>;
  /** Entry id → how many raw memories said it. */
  repeats?: Record<string, number>;
}

/**
 * Score of an entry (higher = more important): importance (×2), a person's word (preferences +3, edited +2),
 * repetition (+1 per extra raw memory, at most +3), use (+0.5 per use, at most +2.5) and recency
 * (+2 for the newest rollout, fading with each older rollout).
 */
export function scoreEntries(entries: MemoryEntry[], ctx: RankContext): Map<string, number> {
  const times = [...new Set(entries.map((e) => e.at))].sort().reverse();
  const scores = new Map<string, number>();
  for (const e of entries) {
    const age = Math.max(0, times.indexOf(e.at));
    let s = e.importance * 2;
    if (e.kind === 'preference') s += 3;
    if (e.edited) s += 2;
    if (e.kind === 'task_state') s -= 1;
    s += Math.min(Math.max((ctx.repeats?.[e.id] ?? 1) - 1, 0), 3);
    s += Math.min(ctx.uses[e.id] ?? 0, 5) * 0.5;
    s += 2 / (1 + age / 2);
    scores.set(e.id, s);
  }
  return scores;
}

/**
 * Entries by score, best first (ties: newer first, then their order in `entries`, i.e. in MEMORY.md: never by
 * id, which is a hash and would decide at random which of equal entries a cap drops).
 */
export function rankEntries(entries: MemoryEntry[], scores: Map<string, number>): MemoryEntry[] {
  return [...entries].sort((a, b) => scores.get(b.id)! - scores.get(a.id)! || (a.at === b.at ? 0 : a.at < b.at ? 1 : -1));
}

/** Tokens one entry takes as a rendered line (text, id note, sources). */
export function entryTokens(e: MemoryEntry): number {
  return estimateTokens(`- ${entryText(e.text)} <!-- id:${e.id} src:${e.sources.join(',')} imp:${e.importance} at:${e.at} -->\n`);
}

/**
 * Keeps ranked entries, best first, while their lines fit `budgetTokens` (after `overheadTokens` for
 * headings and the header); a too-long entry is skipped, not cut. Returns kept and dropped, each in rank order.
 */
export function capEntries(ranked: MemoryEntry[], budgetTokens: number, overheadTokens: number, cost: (e: MemoryEntry) => number = entryTokens): { kept: MemoryEntry[]; dropped: MemoryEntry[] } {
  const kept: MemoryEntry[] = [];
  const dropped: MemoryEntry[] = [];
  let used = overheadTokens;
  for (const e of ranked) {
    const t = cost(e);
    if (used + t <= budgetTokens) {
      kept.push(e);
      used += t;
    } else dropped.push(e);
  }
  return { kept, dropped };
}
