import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryLayout } from '../config/memory.js';
import { logger } from '../config/logger.js';
import { mnemaraOwnedPaths } from '../memory/layout.js';
import type { SnapshotStore } from '../snapshot/types.js';
import { mergeLayouts } from './layout-merge.js';

const log = logger('session.orphans');

/**
 * Brings the agent's own notes of an orphaned rollout (the files under `memories/` that mnemara does not write:
 * memory-tool notes, `memories/notes.md` …) from its snapshot into the memory layout at `layoutDir`, the way a
 * session that lost the head race gets its notes onto the head: a three-way merge of memory layouts
 * (`mergeLayouts`), base = the layout of the snapshot it started from (its manifest's parent; none for a sandbox
 * rescued after a kill). Without this a killed session's notes stayed only on its branch `LINEAGE@<rollout-id>`.
 *
 * mnemara's own files (`mnemaraOwnedPaths`) are never taken from the orphan (the agent could have written them;
 * its transcript comes in through `sessions/`, its lessons through the pipeline). A note both sides changed keeps
 * the head's version at its path and the orphan's beside it as `<name>.from-<rollout-id>`: nothing is lost, and the
 * newer text stays where the next run reads it. The pipeline redacts the notes before any memory snapshot (they
 * were redacted in the sandbox too). Returns the note paths taken (workspace-relative). Throws what the store's
 * restore throws.
 */
export async function adoptOrphanNotes(
  store: SnapshotStore,
  snapshotId: string,
  rolloutId: string,
  layoutDir: string,
  layout: MemoryLayout,
  scratchDir: string,
): Promise<string[]> {
  const owned = mnemaraOwnedPaths(layout);
  const notesOf = async (id: string): Promise<string> => {
    const dir = await mkdtemp(join(scratchDir, 'orphan-notes-'));
    await store.restoreToDirectory(id, dir, { paths: [layout.memoriesDir] });
    // Only the agent's notes take part: mnemara's files are absent on both sides, so ours stand.
    await Promise.all(owned.map((p) => rm(join(dir, p), { recursive: true, force: true })));
    return dir;
  };
  const manifest = await store.get(snapshotId);
  const theirs = await notesOf(snapshotId);
  const base = manifest.parent ? await notesOf(manifest.parent).catch(() => null) : null;
  try {
    const report = await mergeLayouts({ ours: layoutDir, theirs, base, dirs: [layout.memoriesDir], rebuilt: () => false, tag: rolloutId, oursStays: true });
    const present = async (rel: string): Promise<boolean> => lstat(join(layoutDir, rel)).then(() => true, () => false);
    const candidates = [...report.fromTheirs, ...report.conflicts.map((p) => `${p}.from-${rolloutId}`)];
    const taken = (await Promise.all(candidates.map(async (p) => ((await present(p)) ? p : null)))).filter((p): p is string => p !== null).sort();
    if (taken.length) log.info({ snapshot: snapshotId, rolloutId, notes: taken }, "adopted an orphaned rollout's memory notes");
    return taken;
  } finally {
    await Promise.all([rm(theirs, { recursive: true, force: true }), base ? rm(base, { recursive: true, force: true }) : null]);
  }
}
