import type { MemoryLayout } from '../config/memory.js';
import type { SnapshotStore } from '../snapshot/types.js';
import { readHeadMemory } from './lineage.js';

/** Rollouts on a lineage head that the pipeline has not extracted yet (no rollout summary in the head's memory). */
export interface PendingOnHead {
  lineage: string;
  head: string;
  rolloutIds: string[];
}

/**
 * The rollouts each lineage head holds (its manifest's `rolloutIds`) without a rollout summary under
 * `memories/rollout_summaries/`: "pending (not extracted yet)", as `lineage show` says. A session killed during
 * phase 1 leaves them so (issue 10); `mnemara recover` runs the pipeline for them. Only lineages with some are
 * listed; `lineage` limits the search to one, and lineages in `skip` (damaged heads, `findDamagedHeads`) are passed
 * over. Throws what the store throws.
 */
export async function findPendingOnHeads(store: SnapshotStore, layout: MemoryLayout, lineage?: string, skip?: ReadonlySet<string>): Promise<PendingOnHead[]> {
  const heads = await store.listHeads();
  const out: PendingOnHead[] = [];
  for (const [name, head] of Object.entries(heads).sort()) {
    if ((lineage !== undefined && name !== lineage) || skip?.has(name)) continue;
    const m = await store.get(head).catch(() => null);
    if (!m || m.rolloutIds.length === 0) continue;
    const { summaries } = await readHeadMemory(store, head, layout);
    const rolloutIds = m.rolloutIds.filter((r) => !summaries.has(r)).sort();
    if (rolloutIds.length) out.push({ lineage: name, head, rolloutIds });
  }
  return out;
}
