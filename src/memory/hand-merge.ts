import { applyConcurrentEdits, concurrentEdits } from './phase2/concurrent-edits.js';
import { parseMemoryMd, renderMemoryMd, type HandBlock } from './memory-md.js';

/**
 * Three-way merge of MEMORY.md texts (format: `memory-md.ts`) for a hand snapshot whose directory was restored
 * from `base` while the head moved on to `theirs` (issue 10: Alice's and Bob's bullets, each added to a copy of
 * the same head, both reach the head). Our changes since `base` (entries added or reworded, entries deleted, the
 * person's verbatim blocks) are laid over `theirs` the way a consolidation keeps a person's concurrent edits
 * (`concurrentEdits`); blocks both sides changed are all kept (theirs first, then ours not already there).
 * `null` = no file. Returns the merged text, or `null` when neither side has a file. Pure; never throws.
 */
export function mergeMemoryMd(base: string | null, ours: string | null, theirs: string | null): string | null {
  if (ours === theirs || ours === base) return theirs;
  if (theirs === base || theirs === null) return ours;
  const t = parseMemoryMd(theirs);
  const edits = concurrentEdits(base, ours, new Date().toISOString());
  if (!edits) return theirs;
  const entries = applyConcurrentEdits(t.entries, edits);
  const baseBlocks = parseMemoryMd(base ?? '').blocks;
  let blocks: HandBlock[] = t.blocks;
  if (edits.blocks) {
    const theirsChanged = JSON.stringify(baseBlocks) !== JSON.stringify(t.blocks);
    if (!theirsChanged) blocks = edits.blocks;
    else {
      const have = new Set(t.blocks.map((b) => JSON.stringify(b)));
      blocks = [...t.blocks, ...edits.blocks.filter((b) => !have.has(JSON.stringify(b)))];
    }
  }
  const info = t.info ?? parseMemoryMd(ours ?? '').info ?? { consolidatedAt: new Date().toISOString(), producer: 'hand', promptVersion: '0' };
  return renderMemoryMd(entries, info, blocks);
}
