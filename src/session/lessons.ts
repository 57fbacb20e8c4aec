import { readFile } from 'node:fs/promises';
import { parseMemoryMd, type MemoryEntry } from '../memory/memory-md.js';
import { redact } from '../memory/redact.js';
import type { LessonChanges } from './types.js';

/** Entries of a MEMORY.md file; none when the file is missing or unreadable. */
export async function readEntries(file: string): Promise<MemoryEntry[]> {
  const text = await readFile(file, 'utf8').catch(() => null);
  return text === null ? [] : parseMemoryMd(text).entries;
}

/** This run's rollout id, and the MEMORY.md entries (by id) of the heads its head move merged in. */
export interface OwnLessons {
  rolloutId: string;
  mergedIn: ReadonlyMap<string, MemoryEntry>;
}

function same(a: MemoryEntry, b: MemoryEntry): boolean {
  return a.text === b.text && a.importance === b.importance && a.sources.join() === b.sources.join();
}

/**
 * What a session changed in MEMORY.md, by entry id (ids derive from normalized content, so a reworded lesson
 * is one removed and one added): `changed` = same id, other sources, importance or text. `text` holds each
 * named entry's words, redacted. `archive`: the entries of `memories/archive.md` after the session, which decide
 * `archived`. `own`: this run's rollout id and the entries of the heads it merged in (another session's head
 * move won the race): an entry those heads brought is not this run's addition unless it cites this run (its
 * lesson merged into one of theirs), nor its change when it stands as that head left it.
 */
export function diffLessons(before: MemoryEntry[], after: MemoryEntry[], archive?: MemoryEntry[], own?: OwnLessons): LessonChanges {
  const old = new Map(before.map((e) => [e.id, e]));
  const now = new Set(after.map((e) => e.id));
  const added: string[] = [];
  const changed: string[] = [];
  for (const e of after) {
    const prev = old.get(e.id);
    const theirs = own?.mergedIn.get(e.id);
    if (!prev) {
      if (!theirs || e.sources.includes(own!.rolloutId)) added.push(e.id);
    } else if (!same(prev, e) && !(theirs && same(theirs, e))) changed.push(e.id);
  }
  const removed = before.filter((e) => !now.has(e.id)).map((e) => e.id);
  // Removed entries by their old words too: the summary names what left, not only how many (thirteenth trial F21).
  // Redacted: a repository's own MEMORY.md arrives as it is, and its removed entries were printed with their tokens
  // and passwords in the run summary (re-trial of trial 23).
  const text = Object.fromEntries([...after.filter((e) => added.includes(e.id) || changed.includes(e.id)), ...before.filter((e) => removed.includes(e.id))].map((e) => [e.id, redact(e.text)]));
  // Only what archive.md holds can be restored: a summary that sent the user there for a dropped entry was wrong.
  const kept = archive === undefined ? undefined : new Set(archive.map((e) => e.id));
  return { added, changed, removed, total: after.length, text, ...(kept ? { archived: removed.filter((id) => kept.has(id)) } : {}) };
}
