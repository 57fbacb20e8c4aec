import { parseMemoryMd, type HandBlock, type MemoryEntry } from '../memory-md.js';
import { normalizeText } from '../normalize.js';
import type { Tombstone } from '../state.js';

/** What a person changed in MEMORY.md while a consolidation ran (from the text it read to the text now on disk). */
export interface ConcurrentEdits {
  /** Entries added or reworded meanwhile: kept as the person wrote them (`edited`). */
  kept: MemoryEntry[];
  /** Entries deleted meanwhile, as tombstones (so the new MEMORY.md does not bring them back). */
  deleted: Record<string, Tombstone>;
  /** A person's verbatim blocks as they are now, when they changed meanwhile (else absent). */
  blocks?: HandBlock[];
}

/**
 * The difference between MEMORY.md as a consolidation read it (`before`, `null` = no file) and as it is now
 * (`now`): bullets added or reworded since (new ids, or known ids with another text), ids deleted since, and
 * the person's verbatim blocks when any of them changed.
 * Returns `null` when nothing changed. Pure; the caller re-reads `now` under the memory lock right before it
 * writes, so a hand edit made during the model call is merged instead of overwritten (issue 10, item 9).
 */
export function concurrentEdits(before: string | null, now: string | null, at: string): ConcurrentEdits | null {
  if (before === now || now === null) return null;
  const was = parseMemoryMd(before ?? '');
  const old = new Map(was.entries.map((e) => [e.id, e]));
  const parsed = parseMemoryMd(now);
  const cur = parsed.entries;
  const kept: MemoryEntry[] = [];
  for (const e of cur) {
    const was = old.get(e.id);
    if (was && normalizeText(was.text) === normalizeText(e.text) && was.kind === e.kind) continue;
    kept.push({ ...e, edited: true });
  }
  const present = new Set(cur.map((e) => e.id));
  const deleted: Record<string, Tombstone> = {};
  for (const [id, e] of old) if (!present.has(id)) deleted[id] = { text: normalizeText(e.text), at, reason: 'deleted-by-hand' };
  const blocksChanged = JSON.stringify(was.blocks) !== JSON.stringify(parsed.blocks);
  if (!kept.length && !Object.keys(deleted).length && !blocksChanged) return null;
  return { kept, deleted, ...(blocksChanged ? { blocks: parsed.blocks } : {}) };
}

/** Applies `edits` to the consolidation's new entries: a person's version of an entry wins; deleted ids go. */
export function applyConcurrentEdits(entries: MemoryEntry[], edits: ConcurrentEdits): MemoryEntry[] {
  const byId = new Map(edits.kept.map((e) => [e.id, e]));
  const out = entries.filter((e) => !edits.deleted[e.id]).map((e) => {
    const mine = byId.get(e.id);
    if (!mine) return e;
    byId.delete(e.id);
    return { ...mine, sources: [...new Set([...e.sources, ...mine.sources])] };
  });
  return [...out, ...byId.values()];
}
