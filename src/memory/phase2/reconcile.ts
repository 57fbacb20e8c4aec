import type { MemoryEntry } from '../memory-md.js';
import { parseMemoryMd } from '../memory-md.js';
import { entryId, nearDuplicate, normalizeText, sha256 } from '../normalize.js';
import type { MemoryState, Tombstone, Written } from '../state.js';
import type { Candidate } from './merge.js';

/**
 * Reading MEMORY.md back against what mnemara last wrote (`state.written`): a changed text is a person's edit
 * (kept, marked `edited`), a bullet without an id is a person's entry, and an id that was written but is gone
 * is a person's deletion (a tombstone, so that old raw memories cannot bring it back).
 */
export interface Handbook {
  entries: MemoryEntry[];
  /** New tombstones for entries a person deleted since the last write. */
  deleted: Record<string, Tombstone>;
  /** The record of the last write that matches the file on disk (pending one promoted when it landed). */
  written: Written | null;
  /** Entries the agent of `agentRollout` added or changed (not a person's: they become raw memories). */
  absorbed: MemoryEntry[];
}

/** Resolves a write in flight: the pending record counts when MEMORY.md on disk is the file it describes. */
export function lastWritten(state: MemoryState, memoryMdText: string | null): Written | null {
  if (state.pending && memoryMdText !== null && sha256(memoryMdText) === state.pending.memoryMdHash) return state.pending;
  return state.written;
}

/**
 * Parses MEMORY.md (`null` = no file) and tells a person's changes from mnemara's own. With `agentRollout`
 * (a run that wrote MEMORY.md itself, e.g. through the memory tool), the changes are that agent's: added or
 * changed entries come back in `absorbed` (not pinned as a person's, cited to that rollout) and its
 * deletions leave no tombstone.
 */
export function readHandbook(memoryMdText: string | null, state: MemoryState, now: string, agentRollout?: string): Handbook {
  const written = lastWritten(state, memoryMdText);
  if (memoryMdText === null) return { entries: [], deleted: {}, written, absorbed: [] };
  const { entries } = parseMemoryMd(memoryMdText);
  const clean = written !== null && sha256(memoryMdText) === written.memoryMdHash;
  const deleted: Record<string, Tombstone> = {};
  const absorbed: MemoryEntry[] = [];
  if (!clean && (written || agentRollout)) {
    const pinned = new Set(written?.edited ?? []);
    for (const e of entries) {
      const was = written?.entries[e.id];
      const changed = was === undefined ? !pinned.has(e.id) && e.edited : was !== normalizeText(e.text);
      if (!changed) continue;
      if (agentRollout && !pinned.has(e.id)) {
        e.edited = false;
        e.sources = [...new Set([...e.sources, agentRollout])];
        absorbed.push(e);
      } else e.edited = true;
    }
    if (!agentRollout && written) {
      const present = new Set(entries.map((e) => e.id));
      for (const [id, text] of Object.entries(written.entries)) {
        if (!present.has(id)) deleted[id] = { text, at: now, reason: 'deleted-by-hand' };
      }
    }
  }
  return { entries, deleted, written, absorbed };
}

/** Whether a candidate is a lesson a person forgot (same id as a tombstone, or the same text). */
export function isForgotten(c: Candidate, forgotten: Record<string, Tombstone>): boolean {
  // A superseded or capped entry stays out while only the evidence it had says it; a later rollout may relearn it.
  const blocks = (t: Tombstone) => t.entryAt === undefined || !(c.at > t.entryAt);
  for (const id of c.ids) if (forgotten[id] && blocks(forgotten[id])) return true;
  return Object.values(forgotten).some((t) => blocks(t) && nearDuplicate(t.text, c.text));
}

/**
 * Gives each candidate the id of the existing entry it continues (same id among its wordings, or a
 * near-duplicate text), so ids stay stable across consolidations; a person's edited text and section win
 * over the candidate's. Edited entries that no candidate continues are kept as they are.
 * Entries that were neither edited nor continued are gone: superseded, forgotten or out of the window.
 */
export function assignEntries(candidates: Candidate[], existing: MemoryEntry[], liveRollouts: Set<string>): MemoryEntry[] {
  const used = new Set<MemoryEntry>();
  const out: MemoryEntry[] = [];
  const taken = new Set<string>();
  for (const c of candidates) {
    const prev =
      existing.find((e) => !used.has(e) && c.ids.has(e.id)) ??
      existing.find((e) => !used.has(e) && (e.kind === c.kind || e.edited) && nearDuplicate(e.text, c.text));
    if (prev) used.add(prev);
    const sources = [...new Set([...c.sources, ...(prev?.sources ?? [])])].filter((s) => liveRollouts.has(s));
    // A candidate made in phase 2 may carry no id of a raw memory: its own text names it, as merge does.
    const id = prev?.id ?? [...c.ids][0] ?? entryId(c.text);
    if (taken.has(id)) continue;
    taken.add(id);
    out.push({
      id,
      kind: prev?.edited ? prev.kind : c.kind,
      text: prev?.edited ? prev.text : c.text,
      sources,
      importance: prev?.edited ? prev.importance : c.importance,
      at: c.at,
      edited: prev?.edited ?? false,
    });
  }
  for (const e of existing) {
    if (used.has(e) || !e.edited || taken.has(e.id)) continue;
    taken.add(e.id);
    out.push({ ...e, sources: e.sources.filter((s) => liveRollouts.has(s)) });
  }
  return out;
}
