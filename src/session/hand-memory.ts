import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryConfig, MemoryLayout } from '../config/memory.js';
import type { OnProgress } from '../config/progress.js';
import { refreshSummary } from '../memory/handbook.js';
import type { SnapshotStore } from '../snapshot/types.js';
import { extractLayout } from './layout-extract.js';
import { mergeLayouts, pipelineFiles } from './layout-merge.js';

/**
 * Keeps a person's hand edits of a restored memory layout when the head moved on since the restore (issue 10:
 * `snapshot create --kind memory` of a copy restored from H laid it over a head that had moved to another
 * person's edit of H, and that edit was gone). Returns a `beforePack(parent)` for `createOnHead`: whenever the
 * snapshot is about to be packed on a `parent` that is not the snapshot `dir` last matched (first `base`, then
 * each head merged in), `parent`'s memory layout is merged three-way into `dir` itself, as a session merges a
 * head that moved (`mergeLayouts`): files only one side changed take that side; MEMORY.md changed on both sides
 * gets both sides' entry edits (`mergeMemoryMd`); a text note both changed gets both sides' lines; any other
 * file both changed keeps theirs and ours beside it as `<name>.ours-<tag>`. Derived files (the consolidation state, per-rollout artifacts) take the head's: the next
 * consolidation rebuilds them; memory_summary.md is rendered again from the merged MEMORY.md (`refreshSummary`). `dir` then holds what the snapshot holds.
 * Throws what `restoreToDirectory` throws (e.g. `base` was pruned from the store).
 */
export function handMemoryMerger(options: {
  store: SnapshotStore;
  dir: string;
  base: string;
  layout: MemoryLayout;
  /** Caps the summary is rendered with (tokens; `memory.memoryMdTokens`, `memory.summaryTokens`). */
  caps: Pick<MemoryConfig, 'memoryMdTokens' | 'summaryTokens'>;
  tag: string;
  onProgress?: OnProgress;
}): { beforePack: (parent: string | null) => Promise<void>; merged: () => string[] } {
  const { store, dir, layout, caps, tag, onProgress } = options;
  const dirs = [layout.memoriesDir, layout.sessionsDir];
  const m = layout.memoriesDir;
  const memoryMd = `${m}/MEMORY.md`;
  let matches = options.base;
  const merged: string[] = [];
  const extract = async (root: string, id: string): Promise<string> => extractLayout(store, id, await mkdtemp(join(root, 'layout-')), layout);
  const beforePack = async (parent: string | null): Promise<void> => {
    if (parent === null || parent === matches) return;
    const root = await mkdtemp(join(tmpdir(), 'mnemara-hand-merge-'));
    try {
      const [theirs, base] = await Promise.all([extract(root, parent), extract(root, matches)]);
      const report = await mergeLayouts({
        ours: dir,
        theirs,
        base,
        dirs,
        tag,
        memoryMd,
        rebuilt: pipelineFiles(m),
      });
      // The summary is derived: the head's would describe the head's MEMORY.md, not the merged one, until the next
      // consolidation. Rendered from the merged file as phase 2 renders it.
      await refreshSummary(dir, { ...caps, layout });
      merged.push(parent);
      onProgress?.({
        step: 'merge',
        phase: 'end',
        message: `the head moved to ${parent} since ${dir} was restored from ${matches}: merged its memory in (${report.fromTheirs.length} files from the head, ${report.conflicts.length} changed on both sides${report.conflicts.length ? `: ${report.conflicts.slice(0, 5).join(', ')}` : ''})`,
      });
      matches = parent;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  };
  return { beforePack, merged: () => [...merged] };
}
