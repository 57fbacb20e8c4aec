import type { MemoryEntry } from '../memory-md.js';
import { entryId, normalizeText } from '../normalize.js';
import type { Tombstone } from '../state.js';
import type { Candidate } from './merge.js';
import { migrationRetires } from './supersede.js';

/**
 * Entries leaving MEMORY.md by rule (issue 12): superseded by a newer entry, or pushed out by the caps.
 * They are never deleted silently: each goes to the archive (`archive.md`, `memory restore <id>`), gets a
 * tombstone so that the raw memories it came from cannot bring it back, and is named in the run's report.
 */

/** The MEMORY.md form of a superseded candidate: the existing entry it continued, else one made from it. */
export function entryOfCandidate(c: Candidate, existing: MemoryEntry[]): MemoryEntry {
  const prev = existing.find((e) => c.ids.has(e.id));
  return prev ?? { id: [...c.ids][0] ?? entryId(c.text), kind: c.kind, text: c.text, sources: c.sources, importance: c.importance, at: c.at, edited: false };
}

/**
 * A person's own entries that a newer fact of the repository's change retires ("we migrated from npm to
 * pnpm" retires "always run `npm ci` first"): the fact must be newer than the entry (an entry without a time
 * is older than any rollout). Returns the retired entries and, for each, the fact's text.
 */
export function retireByMigration(entries: MemoryEntry[], facts: Candidate[]): Array<{ entry: MemoryEntry; by: string }> {
  const out: Array<{ entry: MemoryEntry; by: string }> = [];
  for (const e of entries) {
    if (!e.edited) continue;
    const by = facts.find((f) => f.kind === 'fact' && f.at > (e.at || '') && migrationRetires(f.text, e.text));
    if (by) out.push({ entry: e, by: by.text });
  }
  return out;
}

/** Tombstones for entries leaving by rule, keyed by id (text normalized, the entry's time kept). */
export function ruleTombstones(entries: MemoryEntry[], reason: 'superseded' | 'capped', now: string): Record<string, Tombstone> {
  return Object.fromEntries(entries.map((e) => [e.id, { text: normalizeText(e.text), at: now, reason, ...(e.at ? { entryAt: e.at } : {}) }]));
}
