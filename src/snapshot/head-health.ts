import { stat } from 'node:fs/promises';
import { SnapshotCorruptError } from './errors.js';
import type { DirectoryStore } from './store/dir-store.js';

/** A lineage head (or branch) whose snapshot the next run could not start from. */
export interface DamagedRef {
  /** `lineage` for a head, `LINEAGE@NAME` for a branch. */
  name: string;
  /** The snapshot id the ref names. */
  id: string;
  error: string;
}

/**
 * The lineage heads whose snapshot cannot be read: the manifest missing or unparsable, or a blob of its chain
 * (layers, tree index) missing or of another size than the manifest says. Cheap (manifests and `stat`s, no
 * decompression): a flipped bit inside a blob is `snapshot verify`'s to find. `mnemara doctor` reports these as a
 * failed check (trial 22 F8: a damaged head was counted under "pending" and doctor said "ready"). Never throws for a
 * damaged head; throws what listing the heads throws.
 */
export async function findDamagedHeads(store: DirectoryStore): Promise<DamagedRef[]> {
  const damaged: DamagedRef[] = [];
  for (const [name, id] of Object.entries(await store.listHeads()).sort()) {
    try {
      const m = await store.get(id);
      const blobs: Array<{ what: string; digest: string; bytes?: number }> = [
        ...m.layers.map((l) => ({ what: 'layer', digest: l.digest, bytes: l.compressedBytes })),
        ...(m.treeIndex ? [{ what: 'tree index', digest: m.treeIndex.digest, bytes: m.treeIndex.compressedBytes }] : []),
        ...(m.treeIndex?.bases ?? []).map((digest) => ({ what: 'tree index base', digest })),
      ];
      for (const b of blobs) {
        const st = await stat(store.blobs.pathOf(b.digest)).catch(() => null);
        if (!st) throw new SnapshotCorruptError(id, `${b.what} blob ${b.digest} is missing`);
        if (b.bytes !== undefined && st.size !== b.bytes) throw new SnapshotCorruptError(id, `${b.what} blob ${b.digest} is ${st.size} bytes, the manifest says ${b.bytes}`);
      }
    } catch (err) {
      damaged.push({ name, id, error: (err as Error).message });
    }
  }
  return damaged;
}
