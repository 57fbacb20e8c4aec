/**
 * A workspace snapshot that added much to the store (trial 21 F7: a command that timed out left a 1.1 GB file of
 * random bytes, stored silently, and inherited by every later snapshot of the lineage). Said once, with how to
 * see what it was and how to keep such files out.
 */
import type { Manifest } from '../snapshot/types.js';
import { formatBytes } from '../config/bytes.js';
import type { SessionNotice } from './types.js';

/** Stored bytes of one run's delta layer above which the run says so: far above source edits, below a stray dump. */
export const LARGE_LAYER_BYTES = 256 * 1024 * 1024;

/**
 * The `large-snapshot` notice for a workspace snapshot whose newest layer is a delta (the run's changes; a fresh
 * copy's first layer is the whole tree, large by nature) storing more than `limit` bytes, or null. Pure.
 */
export function largeSnapshotNotice(m: Manifest, parent: string | null, lineage: string, limit = LARGE_LAYER_BYTES): SessionNotice | null {
  const layer = m.layers.at(-1);
  if (!parent || !layer || m.layers.length < 2 || layer.compressedBytes <= limit) return null;
  return {
    kind: 'large-snapshot',
    file: m.id,
    message: `the run's workspace snapshot ${m.id} added ${formatBytes(layer.compressedBytes)} to the store (${layer.fileCount} changed file(s), ${formatBytes(layer.uncompressedBytes)} uncompressed); every later snapshot of the lineage keeps it`,
    hint: `see what it holds with \`mnemara snapshot diff ${parent} ${m.id}\`; keep large generated files out with snapshot.ignore (--set snapshot.ignore=PATH), and once a later run deleted the file, \`mnemara snapshot squash ${lineage}\` then \`mnemara snapshot prune --lineage ${lineage}\` free the space`,
  };
}
