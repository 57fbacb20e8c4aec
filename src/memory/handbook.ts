import { readFile } from 'node:fs/promises';
import { readArchive } from './archive.js';
import { MnemaraError } from '../config/errors.js';
import type { MemoryConfig, MemoryLayout } from '../config/memory.js';
import { memoryPaths, type MemoryPaths } from './layout.js';
import { withMemoryLock } from './lock.js';
import { parseHandbookInfo, parseMemoryMd, type MemoryEntry } from './memory-md.js';
import { contentTokens, normalizeText } from './normalize.js';
import { readHandbook } from './phase2/reconcile.js';
import { readMemoryMd, renderHandbook, writeHandbook, type RenderedHandbook } from './phase2/write.js';
import { writeFileAtomic } from './atomic.js';
import { loadState, type MemoryState } from './state.js';
import { entryUses } from './use.js';
import { join } from 'node:path';

/** What `mnemara memory show` reports about one memory layout. */
export interface MemoryOverview {
  memoriesDir: string;
  /** Entries of MEMORY.md in file order (empty when there is none). */
  entries: MemoryEntry[];
  summaryIds: string[];
  consolidation: MemoryState['consolidation'];
  producer: string | null;
  promptVersion: string | null;
  rollouts: { extracted: number; failed: Array<{ rolloutId: string; error: string; attempts: number }>; forgotten: number };
  forgottenEntries: number;
}

/** Reads a memory layout for display; a layout without memory gives an empty overview (never throws for that). */
export async function describeMemory(workspaceDir: string, layout?: MemoryLayout): Promise<MemoryOverview> {
  const paths = memoryPaths(workspaceDir, layout);
  const md = await readMemoryMd(paths);
  const summary = await readFile(paths.summaryMd, 'utf8').catch(() => '');
  const state = await loadState(paths.stateFile);
  const info = md ? parseHandbookInfo(md) : null;
  const rollouts = Object.entries(state.rollouts);
  return {
    memoriesDir: paths.memoriesDir,
    entries: md ? parseMemoryMd(md).entries : [],
    summaryIds: [...summary.matchAll(/\[(m-[0-9a-f]{8})\]\s*$/gm)].map((m) => m[1]!),
    consolidation: state.consolidation,
    producer: info?.producer ?? null,
    promptVersion: info?.promptVersion ?? null,
    rollouts: {
      extracted: rollouts.filter(([, r]) => r.status === 'extracted').length,
      failed: rollouts.filter(([, r]) => r.status === 'failed').map(([rolloutId, r]) => ({ rolloutId, error: r.error ?? '', attempts: r.attempts })),
      forgotten: rollouts.filter(([, r]) => r.status === 'forgotten').length,
    },
    forgottenEntries: Object.keys(state.forgotten).length,
  };
}

/** One search hit: the entry and how many of the words it holds. */
export interface SearchHit {
  entry: MemoryEntry;
  matched: number;
  /** The entry is in `memories/archive.md` (pushed out by the size cap), not in MEMORY.md. */
  archived?: boolean;
}

/**
 * Entries of MEMORY.md that hold any of `words` (case-insensitive, as substrings of the entry text, its id
 * or its sources), best first: more words matched, then file order.
 */
export async function searchMemory(workspaceDir: string, words: string[], layout?: MemoryLayout): Promise<SearchHit[]> {
  const paths = memoryPaths(workspaceDir, layout);
  const md = await readMemoryMd(paths);
  if (words.length === 0) return [];
  const needles = words.map((w) => normalizeText(w)).filter(Boolean);
  const hits: SearchHit[] = [];
  const look = (entry: MemoryEntry, archived: boolean) => {
    const hay = `${normalizeText(entry.text)} ${entry.id} ${entry.sources.join(' ')} ${[...contentTokens(entry.text)].join(' ')}`;
    const matched = needles.filter((n) => hay.includes(n)).length;
    if (matched > 0) hits.push({ entry, matched, ...(archived ? { archived: true } : {}) });
  };
  for (const entry of md ? parseMemoryMd(md).entries : []) look(entry, false);
  // The archive too: entries the size cap moved out are not gone (`memory restore <id>`).
  for (const entry of await readArchive(paths)) look(entry, true);
  return hits.sort((a, b) => b.matched - a.matched || Number(a.archived ?? false) - Number(b.archived ?? false));
}

/**
 * `mnemara memory forget <id>`: removes the entry from MEMORY.md and memory_summary.md and records a
 * tombstone, so that no later consolidation brings it back from old raw memories (not even reworded:
 * tombstones match near-duplicates). `id` may be a unique prefix (`m-1a2b`). Returns the removed entry.
 * @throws MnemaraError `NOT_FOUND` (no such entry, or no MEMORY.md), `USAGE` (ambiguous prefix), `BUSY`.
 */
export async function forgetEntry(workspaceDir: string, id: string, config: Pick<MemoryConfig, 'memoryMdTokens' | 'summaryTokens'> & { layout?: MemoryLayout }, now: () => Date = () => new Date()): Promise<MemoryEntry> {
  const paths: MemoryPaths = memoryPaths(workspaceDir, config.layout);
  return withMemoryLock(join(paths.memoriesDir, '.lock'), async () => {
    const md = await readMemoryMd(paths);
    if (md === null) throw new MnemaraError('NOT_FOUND', `there is no MEMORY.md in ${paths.memoriesDir}`, { hint: 'Learn something first: mnemara learn <transcript> or mnemara run.' });
    const state = await loadState(paths.stateFile);
    const at = now().toISOString();
    const book = readHandbook(md, state, at);
    const matches = book.entries.filter((e) => e.id === id || e.id.startsWith(id));
    const exact = matches.find((e) => e.id === id);
    if (matches.length === 0) throw new MnemaraError('NOT_FOUND', `no entry ${id} in MEMORY.md`, { hint: 'mnemara memory show (or search) lists the entry ids.' });
    if (!exact && matches.length > 1) throw new MnemaraError('USAGE', `${id} matches ${matches.length} entries: ${matches.map((e) => e.id).join(', ')}`, { hint: 'Give more of the id.' });
    const victim = exact ?? matches[0]!;
    state.forgotten = { ...state.forgotten, ...book.deleted, [victim.id]: { text: normalizeText(victim.text), at, reason: 'forget-command' } };
    const rest = book.entries.filter((e) => e !== victim);
    await writeHandbook(paths, state, renderEntries(md, rest, state, config, at));
    return victim;
  });
}

/** `entries` rendered as phase 2 renders them, with MEMORY.md `md`'s header info and a person's blocks kept. */
function renderEntries(md: string, entries: MemoryEntry[], state: MemoryState, config: Pick<MemoryConfig, 'memoryMdTokens' | 'summaryTokens'>, at: string): RenderedHandbook {
  const info = parseHandbookInfo(md) ?? { consolidatedAt: at, producer: 'deterministic', promptVersion: 'none' };
  return renderHandbook(entries, info, { uses: entryUses(entries, state.uses, state.fileUses) }, config, parseMemoryMd(md).blocks);
}

/**
 * Rewrites `memory_summary.md` from MEMORY.md as it stands in `workspaceDir` (after a hand memory merge, whose
 * MEMORY.md is neither side's), rendered the way phase 2 renders it: MEMORY.md read against the consolidation
 * state (`readHandbook`, a person's bullets and blocks included), ranked and capped (`renderHandbook`, caps in
 * tokens). MEMORY.md itself and the state are not rewritten: the next consolidation does that. Returns whether a
 * summary was written (`false`: no MEMORY.md). Throws what reading or writing the files throws.
 */
export async function refreshSummary(workspaceDir: string, config: Pick<MemoryConfig, 'memoryMdTokens' | 'summaryTokens'> & { layout?: MemoryLayout }, now: () => Date = () => new Date()): Promise<boolean> {
  const paths: MemoryPaths = memoryPaths(workspaceDir, config.layout);
  const md = await readMemoryMd(paths);
  if (md === null) return false;
  const state = await loadState(paths.stateFile);
  const at = now().toISOString();
  const book = readHandbook(md, state, at);
  await writeFileAtomic(paths.summaryMd, renderEntries(md, book.entries, state, config, at).summaryMd);
  return true;
}
