import { readdir, readFile } from 'node:fs/promises';
import { logger } from '../../config/logger.js';
import { parseRawMemories } from '../artifacts.js';
import type { MemoryPaths } from '../layout.js';
import { sha256 } from '../normalize.js';
import type { RawMemory } from '../types.js';

/** The raw memories of one rollout, as phase 2 reads them from `raw_memories/<id>.md`. */
export interface RolloutInput {
  rolloutId: string;
  /** ISO 8601 UTC of the rollout's start (front matter `time`). */
  time: string;
  memories: RawMemory[];
  /** sha256 of the file. */
  hash: string;
}

/** What phase 2 starts from: the newest rollouts within the raw memory budget, and those that fell out of it. */
export interface RawInputs {
  /** Newest first. */
  kept: RolloutInput[];
  /** Rollout ids beyond the newest N raw memories: to be forgotten. */
  forgotten: string[];
  /** Files that could not be parsed (left alone, reported). */
  invalid: Array<{ rolloutId: string; error: string }>;
  /** sha256 over the kept rollouts' ids and file hashes: unchanged ⇒ nothing to consolidate. */
  inputHash: string;
}

const log = logger('memory.phase2');

/**
 * Newest first: by rollout time, then by extraction order (`seq`, for rollouts with the same time, e.g.
 * imported ones stamped within one clock tick), then by id (mnemara's ids are time-sortable).
 */
export function newestFirst(seq: Record<string, number> = {}) {
  return (a: { time: string; rolloutId: string }, b: { time: string; rolloutId: string }): number => {
    if (a.time !== b.time) return a.time < b.time ? 1 : -1;
    const sa = seq[a.rolloutId] ?? -1;
    const sb = seq[b.rolloutId] ?? -1;
    if (sa !== sb) return sb - sa;
    return a.rolloutId < b.rolloutId ? 1 : a.rolloutId > b.rolloutId ? -1 : 0;
  };
}

/**
 * Reads every `raw_memories/*.md` and keeps whole rollouts, newest first, while the count of raw memories
 * stays within `maxRawMemories`; the first rollout that would overflow it, and every older one, is forgotten
 * (except that the newest rollout is always kept, cut to the budget).
 */
export async function loadRawInputs(paths: MemoryPaths, maxRawMemories: number, seq: Record<string, number> = {}): Promise<RawInputs> {
  const names = await readdir(paths.rawMemoriesDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const all: RolloutInput[] = [];
  const invalid: RawInputs['invalid'] = [];
  for (const name of names.filter((n) => n.endsWith('.md') && !n.startsWith('.'))) {
    const rolloutId = name.slice(0, -3);
    const file = `${paths.rawMemoriesDir}/${name}`;
    try {
      const text = await readFile(file, 'utf8');
      const { meta, memories } = parseRawMemories(text, file);
      all.push({ rolloutId, time: meta.time, memories, hash: sha256(text) });
    } catch (err) {
      log.warn({ file, err: (err as Error).message }, 'raw memories file skipped');
      invalid.push({ rolloutId, error: (err as Error).message });
    }
  }
  all.sort(newestFirst(seq));
  const kept: RolloutInput[] = [];
  const forgotten: string[] = [];
  let count = 0;
  for (const r of all) {
    if (forgotten.length === 0 && count + r.memories.length <= maxRawMemories) {
      kept.push(r);
      count += r.memories.length;
    } else if (kept.length === 0) {
      kept.push({ ...r, memories: r.memories.slice(0, maxRawMemories) });
      count = maxRawMemories;
    } else forgotten.push(r.rolloutId);
  }
  const inputHash = sha256(JSON.stringify([maxRawMemories, kept.map((r) => [r.rolloutId, r.hash])]));
  return { kept, forgotten, invalid, inputHash };
}
