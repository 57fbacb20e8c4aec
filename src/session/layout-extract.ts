import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryLayout } from '../config/memory.js';
import { dropLayoutLinks } from '../memory/layout-links.js';
import type { SnapshotStore } from '../snapshot/types.js';

/**
 * Restores only the memory layout (`layout.memoriesDir`, `layout.sessionsDir`) of snapshot `snapshotId` into
 * `dir` (emptied first; for `null`, an empty layout), with the layout's symlinks dropped (`dropLayoutLinks`:
 * a merge must never follow an agent's link out of the layout) and both directories present, so that
 * `mergeLayouts` can read any side as a plain tree. Shared by a session's head merge and a hand snapshot's.
 * Returns `dir`. Throws what `restoreToDirectory` throws (a snapshot pruned from the store, a damaged archive).
 */
export async function extractLayout(store: SnapshotStore, snapshotId: string | null, dir: string, layout: MemoryLayout): Promise<string> {
  const dirs = [layout.memoriesDir, layout.sessionsDir];
  await rm(dir, { recursive: true, force: true });
  if (snapshotId === null) await mkdir(dir, { recursive: true });
  else await store.restoreToDirectory(snapshotId, dir, { paths: dirs });
  await dropLayoutLinks(dir, layout);
  for (const d of dirs) await mkdir(join(dir, d), { recursive: true });
  return dir;
}
