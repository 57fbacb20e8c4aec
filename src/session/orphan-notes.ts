import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dropLayoutLinks } from '../memory/layout-links.js';
import type { MemoryLayout } from '../config/memory.js';
import { logger } from '../config/logger.js';
import { mnemaraOwnedPaths } from '../memory/layout.js';
import type { AgentMemoryEdits } from '../memory/phase2/agent-proposals.js';
import type { SnapshotStore } from '../snapshot/types.js';
import { mergeLayouts } from './layout-merge.js';

const log = logger('session.orphans');

/**
 * Brings the agent's own notes of an orphaned rollout (the files under `memories/` that mnemara does not write:
 * memory-tool notes, `memories/notes.md` …) from its snapshot into the memory layout at `layoutDir`, the way a
 * session that lost the head race gets its notes onto the head: a three-way merge of memory layouts
 * (`mergeLayouts`), base = the layout of the snapshot it started from (its manifest's parent; a sandbox rescued
 * after a kill gets the start its session record names, none only for records older than that). Without this a killed session's notes stayed only on its branch `LINEAGE@<rollout-id>`.
 *
 * mnemara's own files (`mnemaraOwnedPaths`) are never taken from the orphan (the agent could have written them;
 * its transcript comes in through `sessions/`, its lessons through the pipeline). A text note both sides changed gets both
 * sides' lines, the head's first (`unionMerge`); any other file keeps the head's version at its path and the
 * orphan's beside it as `<name>.from-<rollout-id>`: nothing is lost, and the newer text stays where the next run
 * reads it. The pipeline redacts the notes before any memory snapshot (they
 * were redacted in the sandbox too). Returns the note paths taken (workspace-relative) and, when the orphan's agent
 * changed MEMORY.md since its start snapshot, those edits for the pipeline to judge as the rollout's proposals
 * (as a live run's are). Throws what the store's restore throws.
 */
export async function adoptOrphanNotes(
  store: SnapshotStore,
  snapshotId: string,
  rolloutId: string,
  layoutDir: string,
  layout: MemoryLayout,
  scratchDir: string,
): Promise<{ notes: string[]; memoryEdits?: AgentMemoryEdits }> {
  const owned = mnemaraOwnedPaths(layout);
  const notesOf = async (id: string, before: (dir: string) => Promise<unknown>): Promise<string> => {
    const dir = await mkdtemp(join(scratchDir, 'orphan-notes-'));
    await store.restoreToDirectory(id, dir, { paths: [layout.memoriesDir] });
    await dropLayoutLinks(dir, layout);
    await before(dir);
    // Only the agent's notes take part: mnemara's files are absent on both sides, so ours stand.
    await Promise.all(owned.map((p) => rm(join(dir, p), { recursive: true, force: true })));
    return dir;
  };
  const manifest = await store.get(snapshotId);
  const memoryMd = join(layout.memoriesDir, 'MEMORY.md');
  // MEMORY.md as the run started with it and as its agent left it, read before notesOf drops it: the agent's
  // edits are its rollout's proposals, judged by the pipeline like a live run's (`judgeAgentEdits`). Without a
  // start (a rescued sandbox of an old session record) every entry would look added: no proposals then.
  let end: string | null = null;
  const theirs = await notesOf(snapshotId, async (dir) => (end = await readFile(join(dir, memoryMd), 'utf8').catch(() => null)));
  let start: string | null = null;
  const base = manifest.parent ? await notesOf(manifest.parent, async (dir) => (start = await readFile(join(dir, memoryMd), 'utf8').catch(() => null))).catch(() => null) : null;
  const memoryEdits: AgentMemoryEdits | undefined = base && start !== end ? { rolloutId, start, end } : undefined;
  try {
    const report = await mergeLayouts({ ours: layoutDir, theirs, base, dirs: [layout.memoriesDir], rebuilt: () => false, tag: rolloutId, oursStays: true });
    const present = async (rel: string): Promise<boolean> => lstat(join(layoutDir, rel)).then(() => true, () => false);
    const merged = new Set(report.merged);
    const candidates = [...report.fromTheirs, ...report.merged, ...report.conflicts.filter((p) => !merged.has(p)).map((p) => `${p}.from-${rolloutId}`)];
    const taken = (await Promise.all(candidates.map(async (p) => ((await present(p)) ? p : null)))).filter((p): p is string => p !== null).sort();
    if (taken.length) log.info({ snapshot: snapshotId, rolloutId, notes: taken }, "adopted an orphaned rollout's memory notes");
    return { notes: taken, ...(memoryEdits ? { memoryEdits } : {}) };
  } finally {
    await Promise.all([rm(theirs, { recursive: true, force: true }), base ? rm(base, { recursive: true, force: true }) : null]);
  }
}
