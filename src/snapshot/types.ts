import { z } from 'zod';
import type { Readable } from 'node:stream';
import type { OnProgress } from '../config/progress.js';

/** Version of the manifest format below; bumped on any incompatible change. */
export const MANIFEST_FORMAT_VERSION = 1;

/** One tar layer, stored as `<store>/blobs/sha256/<hex>`; the digest is of the compressed bytes. */
export const LayerSchema = z.object({
  /** `sha256:<64 hex>` of the stored (compressed) blob. */
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  compressedBytes: z.number().int().nonnegative(),
  uncompressedBytes: z.number().int().nonnegative(),
  fileCount: z.number().int().nonnegative(),
  codec: z.enum(['gzip', 'zstd', 'none']),
  level: z.number().int().optional(),
  /** A delta layer holds only changes since the layer below, with `.wh.<name>` whiteouts for deletions. */
  delta: z.boolean(),
});
export type Layer = z.infer<typeof LayerSchema>;

/**
 * Reference to a snapshot's tree index (`tree-index.ts`): gzip'd JSON blob(s) in the blob store listing the
 * merged tree of the whole chain with content hashes, stored as a change against the parent's index when small. Optional: snapshots written before it existed (or whose
 * index cannot be read) are handled by scanning their layers.
 */
export const TreeIndexRefSchema = z.object({
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  compressedBytes: z.number().int().nonnegative(),
  entries: z.number().int().nonnegative(),
  /**
   * When `digest` is a delta index (format 2): the digests of the index blobs it is built on, nearest first,
   * ending at a full index. Every blob listed is as much this snapshot's as `digest` (gc and copy keep it).
   */
  bases: z.array(z.string().regex(/^sha256:[0-9a-f]{64}$/)).optional(),
});
export type TreeIndexRef = z.infer<typeof TreeIndexRefSchema>;

/**
 * `<store>/snapshots/<id>/manifest.json` (DESIGN.md, "Snapshot store"). `layers` are in apply order:
 * the first is full, later ones are deltas; restoring applies them all in order.
 */
export const ManifestSchema = z.object({
  formatVersion: z.literal(MANIFEST_FORMAT_VERSION),
  /** Time-sortable id (lexicographic order = creation order). */
  id: z.string().min(1),
  parent: z.string().nullable(),
  lineage: z.string().min(1),
  kind: z.enum(['workspace', 'memory']),
  /** ISO 8601 UTC. */
  createdAt: z.string(),
  layers: z.array(LayerSchema).min(1),
  rolloutIds: z.array(z.string()),
  toolVersion: z.string(),
  /** Paths left out of the newest layer on purpose (sockets, FIFOs, links pointing outside …), with why. */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
  /** Index of the merged tree (written before the manifest); lets the next delta skip reading this chain. */
  treeIndex: TreeIndexRefSchema.optional(),
  /**
   * `'host'`: the run that made this snapshot worked on a copy of a host directory (a fresh or `--memory-from`
   * start), not on its parent's tree; the parent is where its memory came from. `apply` then knows no tree the
   * run started from (`runBase`).
   */
  workspaceFrom: z.literal('host').optional(),
});
export type Manifest = z.infer<typeof ManifestSchema>;
export type SnapshotKind = Manifest['kind'];

/** Limits a restore enforces on every archive (defaults fit a real repository). */
export interface RestoreLimits {
  /** Total uncompressed bytes, default 8 GiB. */
  maxTotalBytes: number;
  /** Entries, default 1,000,000. */
  maxFiles: number;
  /** Bytes of one entry path, default 4,096. */
  maxPathBytes: number;
  /** Directory depth, default 256 (a 10,000-deep tree is refused, not recursed into). */
  maxDepth: number;
}

/** Options of `SnapshotStore.create`. */
export interface CreateSnapshotOptions {
  lineage: string;
  kind: SnapshotKind;
  /** Snapshot the new one is a delta on; `undefined` = the lineage head; `null` = a full layer. */
  parent?: string | null;
  /** Rollout ids the snapshot contains (recorded in the manifest). */
  rolloutIds?: string[];
  /**
   * Relative paths the source covers (e.g. `['memories', 'sessions']` for a memory snapshot).
   * Paths outside the scope are inherited unchanged from the parent, not deleted. Default: everything.
   */
  scope?: string[];
  /** Extra ignore patterns on top of the configured ones. */
  ignore?: string[];
  /**
   * What the source left out that its stream cannot show (a sandbox's sockets: Docker's archive API drops
   * them without an entry): listed in the manifest's `skipped` and reported like the FIFOs the pack skips.
   */
  skipped?: Array<{ path: string; reason: string }>;
  /** The run worked on a copy of a host directory, not on the parent's tree (`Manifest.workspaceFrom`). */
  workspaceFrom?: 'host';
  onProgress?: OnProgress;
}

/** Where a snapshot's content comes from: a host directory, or an uncompressed tar stream (a sandbox's `getArchive`). */
export type SnapshotSource = { dir: string } | { tar: Readable };

/**
 * The snapshot store (directory implementation in `store/`; an object store could implement the same).
 * Every method that reads a blob checks its digest and throws `SnapshotCorruptError` naming the snapshot.
 */
export interface SnapshotStore {
  readonly root: string;
  /** Packs `source` into a new snapshot (a delta against `parent` when there is one). Does not move any head. */
  create(source: SnapshotSource, options: CreateSnapshotOptions): Promise<Manifest>;
  /** The manifest; throws `SnapshotNotFoundError` when absent. */
  get(id: string): Promise<Manifest>;
  /** Complete snapshots only, oldest first; filtered by lineage when given. */
  list(options?: { lineage?: string }): Promise<Manifest[]>;
  /** Current head of a lineage, or `null` when the lineage has none. */
  getHead(lineage: string): Promise<string | null>;
  /** All lineages and their heads. */
  listHeads(): Promise<Record<string, string>>;
  /**
   * Compare-and-swap: moves the head from `expected` (`null` = no head yet) to `next`.
   * Throws `HeadConflictError` carrying `current` when the head is no longer `expected`. Safe across processes.
   */
  advanceHead(lineage: string, expected: string | null, next: string): Promise<void>;
  /** A branch's snapshot id (`LINEAGE@NAME`, DESIGN.md "branch"), or `null` when there is no such branch. */
  getBranch(name: string): Promise<string | null>;
  /** All branches (of `lineage` only, when given): name → snapshot id. */
  listBranches(lineage?: string): Promise<Record<string, string>>;
  /**
   * Compare-and-swap on a branch: from `expected` (`null` = no such branch yet) to `next` (`null` = delete it).
   * Same rules as `advanceHead`: throws `HeadConflictError` with `current`, `SnapshotNotFoundError` when `next`
   * is not a complete snapshot, `MnemaraError('INVALID_INPUT')` for a name that is not `LINEAGE@NAME`.
   */
  moveBranch(name: string, expected: string | null, next: string | null): Promise<void>;
  /**
   * Restores a snapshot into a host directory: into a staging directory, then swapped into place, so the
   * target is either the snapshot exactly or left as it was. With `paths`, only those relative paths of the
   * target are replaced (each becomes exactly the snapshot's, or is removed when the snapshot lacks it) and the
   * rest of the target is kept: how a memory layout is laid over a fresh checkout. Returns entries and content
   * bytes written. Throws `SnapshotNotFoundError`, `SnapshotCorruptError`, `UnsafeArchiveError`,
   * `MnemaraError('INVALID_INPUT')` for a `paths` entry that is not a relative path inside the snapshot, and
   * `MnemaraError('INTERRUPTED')` when `signal` aborts it before the swap (the staging directory is removed,
   * the target left as it was).
   */
  restoreToDirectory(
    id: string,
    dir: string,
    options?: { paths?: string[]; limits?: Partial<RestoreLimits>; onProgress?: OnProgress; signal?: AbortSignal },
  ): Promise<{ files: number; bytes: number }>;
  /**
   * The snapshot's merged tree as one uncompressed, guarded tar stream (for `Sandbox.putArchive`).
   * `paths` restricts it to those relative paths.
   */
  exportTar(id: string, options?: { paths?: string[]; limits?: Partial<RestoreLimits>; onProgress?: OnProgress }): Promise<Readable>;
}
