import { heldOutOfPrompt } from '../injection.js';
import type { MemoryEntry } from '../memory-md.js';

/** Share of the MEMORY.md budget kept first for the newest rollout's important lessons (fraction, 0…1). */
export const FRESH_SHARE = 0.25;
/** Importance from which a lesson of the newest rollout is kept before a person's entries. */
export const FRESH_IMPORTANCE = 4;

/**
 * The order in which the MEMORY.md cap keeps entries (issue 12 item 3); the cap keeps from the front while
 * the budget lasts, so the back goes first.
 * 1. Lessons of the newest rollout with importance ≥ {@link FRESH_IMPORTANCE}, best first, within
 *    {@link FRESH_SHARE} of the budget: what the run just learned (a preference the user stated) is never
 *    pushed out by a long hand-written list.
 * 2. A person's own entries, newest first (`at`; an entry without a time is older than any with one), then
 *    higher importance, then later in the file (a hand-written list grows at its end): the oldest and least
 *    important of them go first, never an order decided by id hash.
 * 3. Every other learned entry, in rank order.
 * 4. A person's entries the read path keeps out of the prompt (`heldOutOfPrompt`: dangerous, written by no run),
 *    in the order of 2: they can never help a run, so a committed list of them must not push the runs' lessons
 *    into the archive (trial 26 N13); the archive keeps them, as it keeps everything the cap moves.
 * `byRank` is the ranked list (`rankEntries`), `position` each entry's place in MEMORY.md as read (ids),
 * `cost` an entry's tokens. Returns the entries of `byRank`, reordered.
 */
export function capOrder(byRank: MemoryEntry[], position: Map<string, number>, budgetTokens: number, cost: (e: MemoryEntry) => number): MemoryEntry[] {
  const learned = byRank.filter((e) => !e.edited);
  const newest = learned.reduce((m, e) => (e.at > m ? e.at : m), '');
  const fresh: MemoryEntry[] = [];
  let used = 0;
  for (const e of learned) {
    if (!newest || e.at !== newest || e.importance < FRESH_IMPORTANCE) continue;
    const t = cost(e);
    if (used + t > budgetTokens * FRESH_SHARE) continue;
    used += t;
    fresh.push(e);
  }
  const taken = new Set(fresh);
  const pos = (e: MemoryEntry) => position.get(e.id) ?? -1;
  const personal = byRank
    .filter((e) => e.edited)
    .sort((a, b) => (a.at === b.at ? b.importance - a.importance || pos(b) - pos(a) : a.at < b.at ? 1 : -1));
  const held = personal.filter((e) => heldOutOfPrompt(e.text, e.sources));
  const served = held.length ? personal.filter((e) => !held.includes(e)) : personal;
  return [...fresh, ...served, ...learned.filter((e) => !taken.has(e)), ...held];
}
