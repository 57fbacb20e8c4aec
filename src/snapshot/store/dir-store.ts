import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { MnemaraError } from '../../config/errors.js';
import { logger } from '../../config/logger.js';
import { noProgress, type OnProgress } from '../../config/progress.js';
import { SnapshotConfigSchema, type SnapshotConfig } from '../../config/snapshot.js';
import { VERSION } from '../../config/version.js';
import { BlobStore } from '../blobs.js';
import { SourceChangedError, UnsafeArchiveError } from '../errors.js';
import { exportChain, writeMerged, type ExportOwner } from '../export.js';
import { extractTar } from '../extract.js';
import { FOLD_FRACTION, writeFolded } from '../fold.js';
import { newSnapshotId, isValidLineage, branchesOf } from '../id.js';
import { compileIgnore } from '../ignore.js';
import { extractChain, interrupted, scanChain, type Chain } from '../layers.js';
import { resolveLimits } from '../limits.js';
import { packLayer } from '../pack.js';
import { guardPath } from '../restore-guard.js';
import { makeStaging, removeTree, swapInto, swapPaths } from '../swap.js';
import { shortPath } from '../short-path.js';
import { assertRestorable } from '../fits.js';
import { writeFailure } from '../write-failure.js';
import type { MergedTree } from '../tree.js';
import { indexRows, readTreeIndex, writeTreeIndex, type IndexParent } from '../tree-index.js';
import {
  MANIFEST_FORMAT_VERSION,
  type CreateSnapshotOptions,
  type Layer,
  type Manifest,
  type RestoreLimits,
  type SnapshotSource,
  type SnapshotStore,
} from '../types.js';
import type { WalkSkip } from '../walk.js';
import type { ExtractedContent } from '../write-entry.js';
import { writeLayerBlob } from './layer-writer.js';
import { ManifestStore } from './manifests.js';
import { LineageRefs } from './refs.js';
import { spliceAll } from '../../config/arrays.js';

const log = logger('snapshot');

/** Options of `restoreToDirectory` and `exportTar` beyond the interface's (all optional). */
export interface ReadOptions {
  paths?: string[];
  limits?: Partial<RestoreLimits>;
  onProgress?: OnProgress;
  /** Restore only: aborting stops the restore before anything is swapped in (`MnemaraError('INTERRUPTED')`). */
  signal?: AbortSignal;
  /** uid/gid written into exported headers; default 0/0. */
  owner?: ExportOwner;
}

/**
 * The directory implementation of `SnapshotStore` (DESIGN.md, "Snapshot store"):
 * `<root>/snapshots/<id>/manifest.json`, `<root>/blobs/sha256/<hex>`, `<root>/refs/lineages/<name>` (layout in
 * `LineageRefs`: `ci/main` is `ci+/main`), and `<root>/tmp/` for writes in progress (cleaned by `gc`). Construct with `openStore`.
 */
export class DirectoryStore implements SnapshotStore {
  readonly blobs: BlobStore;
  readonly manifests: ManifestStore;
  readonly refs: LineageRefs;
  readonly branches: LineageRefs;
  readonly tmpDir: string;

  constructor(
    readonly root: string,
    readonly config: SnapshotConfig,
  ) {
    this.tmpDir = join(root, 'tmp');
    this.blobs = new BlobStore(join(root, 'blobs'), this.tmpDir);
    this.manifests = new ManifestStore(join(root, 'snapshots'), root);
    this.refs = new LineageRefs(join(root, 'refs', 'lineages'));
    this.branches = new LineageRefs(join(root, 'refs', 'branches'), {}, 'branch');
  }

  /**
   * Creates the store's directories if missing (idempotent). Throws `MnemaraError('INVALID_INPUT')` when the
   * store path cannot hold a store (a file on the way, no permission, a read-only filesystem).
   */
  async init(): Promise<void> {
    try {
      // A new store is its owner's alone (0700), like transcripts/ and left-out/: its blobs hold the same
      // transcripts and the workspace files mnemara reported as holding secrets (twelfth trial, F15). An existing
      // store keeps its mode: one shared on purpose (a group's --store) stays shared.
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      for (const d of ['snapshots', 'blobs/sha256', 'refs/lineages', 'refs/branches', 'tmp']) await mkdir(join(this.root, d), { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        throw new MnemaraError('INVALID_INPUT', `snapshot store ${this.root} cannot be used: ${code} (${(err as Error).message})`, {
          hint: 'point --store (or MNEMARA_HOME) at a writable directory',
          cause: err,
        });
      }
      throw err;
    }
  }

  get(id: string): Promise<Manifest> {
    return this.manifests.get(id);
  }

  async list(options: { lineage?: string } = {}): Promise<Manifest[]> {
    const all = await this.manifests.list();
    return options.lineage === undefined ? all : all.filter((m) => m.lineage === options.lineage);
  }

  getHead(lineage: string): Promise<string | null> {
    return this.refs.get(lineage);
  }

  listHeads(): Promise<Record<string, string>> {
    return this.refs.all();
  }

  async advanceHead(lineage: string, expected: string | null, next: string): Promise<void> {
    await this.get(next); // a head may only name a complete snapshot
    await this.refs.advance(lineage, expected, next);
  }

  getBranch(name: string): Promise<string | null> {
    return this.branches.get(name);
  }

  async listBranches(lineage?: string): Promise<Record<string, string>> {
    return branchesOf(await this.branches.all(), lineage);
  }

  async moveBranch(name: string, expected: string | null, next: string | null): Promise<void> {
    if (next === null) {
      if (expected === null) return;
      await this.branches.remove(name, expected);
      return;
    }
    await this.get(next); // a branch, like a head, may only name a complete snapshot
    await this.branches.advance(name, expected, next);
  }

  /** Pass 1 over a snapshot: its verified, guarded merged tree (with content hashes when asked). */
  async tree(id: string, options: { hashContent?: boolean | ((segments: string[]) => boolean); limits?: Partial<RestoreLimits> } = {}): Promise<MergedTree> {
    const m = await this.get(id);
    return scanChain(this.blobs, m, resolveLimits(options.limits), options);
  }

  async create(source: SnapshotSource, options: CreateSnapshotOptions): Promise<Manifest> {
    const onProgress = options.onProgress ?? noProgress;
    if (!isValidLineage(options.lineage)) {
      throw new MnemaraError('INVALID_INPUT', `invalid lineage name ${JSON.stringify(options.lineage)}`, {
        hint: 'Use /-separated names of letters, digits, ".", "_" and "-", not starting with "-" (e.g. ci/main).',
      });
    }
    if (options.kind !== 'workspace' && options.kind !== 'memory') {
      throw new MnemaraError('INVALID_INPUT', `invalid snapshot kind ${JSON.stringify(options.kind)}`, { hint: 'Use workspace or memory.' });
    }
    const started = Date.now();
    const limits = resolveLimits();
    const parentId = options.parent === undefined ? await this.getHead(options.lineage) : options.parent;
    const parent = parentId ? await this.get(parentId) : null;
    const scope = options.scope?.map((p) => guardPath(p, limits));
    const scoped = scope && !scope.some((s) => s.length === 0) ? scope : undefined;
    onProgress({ step: 'snapshot', phase: 'start', message: parent ? `delta on ${parent.id}` : 'full layer' });
    await this.init();

    let dir: string;
    let tmpSource: string | undefined;
    if ('tar' in source) {
      tmpSource = join(this.tmpDir, `src-${process.pid}-${randomBytes(6).toString('hex')}`);
      await mkdir(tmpSource, { mode: 0o700 });
      dir = tmpSource;
    } else {
      dir = resolve(source.dir);
      const st = await stat(dir).catch(() => null);
      if (!st?.isDirectory()) {
        throw new MnemaraError('NOT_FOUND', `snapshot source ${dir} is not a directory`, { hint: 'Pass the directory to snapshot.' });
      }
    }
    const skipped: WalkSkip[] = [];
    const extracted: ExtractedContent = new Map();
    const onSkip = (s: WalkSkip): void => {
      skipped.push(s);
      log.warn(s, 'left out of snapshot');
      onProgress({ step: 'snapshot', phase: 'progress', message: `skipped ${s.path}: ${s.reason}` });
    };
    for (const s of options.skipped ?? []) onSkip(s);
    try {
      if ('tar' in source) {
        await extractTar(source.tar, dir, { limits, onProgress, step: 'snapshot', onSkip: (path, reason) => onSkip({ path, reason }), extracted });
      }
      const fromSource = [...skipped];
      const ignore = compileIgnore([...this.config.ignore, ...(options.ignore ?? [])]);
      let written: Awaited<ReturnType<typeof writeLayerBlob<Awaited<ReturnType<typeof packLayer>>>>> | undefined;
      let indexParent: IndexParent | undefined;
      for (let attempt = 1; !written; attempt++) {
        spliceAll(skipped, 0, skipped.length, fromSource);
        // Loaded per attempt: packing updates it in place into the new snapshot's tree.
        const loaded = parent ? await this.loadParentTree(parent, limits) : null;
        const parentTree = loaded?.tree ?? null;
        // The parent's rows before packing changes them: the new index is stored as a change against them.
        indexParent = loaded?.fromIndex && parent?.treeIndex ? { ref: parent.treeIndex, rows: indexRows(loaded.tree) } : undefined;
        try {
          written = await writeLayerBlob(this.blobs, this.config.codec, this.config.level, (w) =>
            packLayer(dir, w, {
              parent: parentTree,
              layer: parent?.layers.length ?? 0,
              fingerprints: !('tar' in source),
              ...('tar' in source ? { extracted } : {}),
              scope: scoped,
              ignore,
              onSkip,
              onProgress,
              maxFileBytes: limits.maxTotalBytes,
            }),
          );
        } catch (err) {
          if (!(err instanceof SourceChangedError) || attempt >= 2) throw err;
          log.warn({ path: err.path }, 'source changed while packing; packing again');
        }
      }
      assertRestorable(written.result.tree, limits);
      if (written.result.unread > 0) {
        onProgress({ step: 'snapshot', phase: 'progress', message: `${written.result.unread} unchanged file(s) not re-read` });
      }
      const layer: Layer = { ...written.layer, fileCount: written.result.entries, delta: parent !== null };
      const id = newSnapshotId();
      let layers = parent ? [...parent.layers, layer] : [layer];
      let written2 = 0; // a folded or squashed layer written on top of the new one
      if (layers.length > this.config.maxChainLength) {
        // Folding the deltas onto the full base costs what changed since it; a full squash costs the whole tree.
        const folded = layers.length > 2 && !layers[0]!.delta ? await this.foldLayers({ id, layers }, limits) : undefined;
        if (folded && folded.uncompressedBytes <= layers[0]!.uncompressedBytes * FOLD_FRACTION) {
          onProgress({ step: 'snapshot', phase: 'progress', message: `chain of ${layers.length} layers is over ${this.config.maxChainLength}: deltas folded into one` });
          layers = [layers[0]!, folded];
          written2 = folded.compressedBytes;
        } else {
          onProgress({ step: 'snapshot', phase: 'progress', message: `chain of ${layers.length} layers is over ${this.config.maxChainLength}: squashing` });
          layers = [await this.squashLayers({ id, layers }, limits)];
          written2 = (folded?.compressedBytes ?? 0) + layers[0]!.compressedBytes;
        }
      }
      // Written before the manifest, like the layers, so a visible manifest never names a missing index.
      const treeIndex = await writeTreeIndex(this.blobs, written.result.tree, indexParent);
      const manifest: Manifest = {
        formatVersion: MANIFEST_FORMAT_VERSION,
        id,
        parent: parent?.id ?? null,
        lineage: options.lineage,
        kind: options.kind,
        createdAt: new Date().toISOString(),
        layers,
        rolloutIds: [...new Set([...(parent?.rolloutIds ?? []), ...(options.rolloutIds ?? [])])],
        toolVersion: VERSION,
        ...(skipped.length ? { skipped: [...skipped] } : {}),
        treeIndex,
        ...(options.workspaceFrom ? { workspaceFrom: options.workspaceFrom } : {}),
      };
      await this.manifests.write(manifest);
      // Every byte this snapshot wrote (layer blobs, its index blob unless it reuses the parent's, the manifest).
      const added = layer.compressedBytes + written2 + (treeIndex.digest === parent?.treeIndex?.digest ? 0 : treeIndex.compressedBytes) + (await this.manifests.size(id));
      onProgress({ step: 'snapshot', phase: 'end', message: `${id} (+${added} bytes)`, elapsedMs: Date.now() - started });
      return manifest;
    } finally {
      if (tmpSource) await rm(tmpSource, { recursive: true, force: true });
    }
  }

  /**
   * The parent's merged tree with every file's content hash: from its tree index when it has a readable one,
   * otherwise (older snapshots, a damaged index) by scanning its whole chain.
   */
  async parentTree(parent: Manifest, limits: RestoreLimits): Promise<MergedTree> {
    return (await this.loadParentTree(parent, limits)).tree;
  }

  /** `parentTree`, and whether it came from the tree index (`fromIndex`) rather than a scan of the chain. */
  private async loadParentTree(parent: Manifest, limits: RestoreLimits): Promise<{ tree: MergedTree; fromIndex: boolean }> {
    if (parent.treeIndex) {
      try {
        return { tree: await readTreeIndex(this.blobs, parent.treeIndex, limits), fromIndex: true };
      } catch (err) {
        log.warn({ id: parent.id, err: (err as Error).message }, 'tree index unreadable; scanning the chain instead');
      }
    }
    return { tree: await scanChain(this.blobs, parent, limits, { hashContent: true }), fromIndex: false };
  }

  /** Folds a chain into one full layer holding its merged tree (the blob is written; no manifest). */
  async squashLayers(chain: Chain, limits: RestoreLimits = resolveLimits()): Promise<Layer> {
    const tree = await scanChain(this.blobs, chain, limits);
    const { layer, result } = await writeLayerBlob(this.blobs, this.config.codec, this.config.level, (w) =>
      writeMerged(this.blobs, chain, tree, w, { limits }),
    );
    return { ...layer, fileCount: result.files, delta: false };
  }

  /** Folds a chain's deltas into one delta on its full first layer (`fold.ts`; the blob is written, no manifest). */
  async foldLayers(chain: Chain, limits: RestoreLimits = resolveLimits()): Promise<Layer> {
    const { layer, result } = await writeLayerBlob(this.blobs, this.config.codec, this.config.level, (w) => writeFolded(this.blobs, chain, w, limits));
    return { ...layer, fileCount: result.entries, delta: true };
  }

  async exportTar(id: string, options: ReadOptions = {}): Promise<Readable> {
    const m = await this.get(id);
    const limits = resolveLimits(options.limits);
    // The tree index spares pass 1 a read of the whole base layer (a session's restore sends every export in).
    const indexTree = m.treeIndex
      ? await readTreeIndex(this.blobs, m.treeIndex, limits).catch((err: NodeJS.ErrnoException) => {
          // Absent is normal in an S3 store's local cache, which fetches the layers for a read, not the index.
          log[err.code === 'ENOENT' ? 'debug' : 'warn']({ id, err: err.message }, 'tree index unreadable; scanning the chain instead');
          return undefined;
        })
      : undefined;
    return exportChain(this.blobs, m, { paths: options.paths, owner: options.owner, limits, ...(indexTree ? { indexTree } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  }

  async restoreToDirectory(id: string, dir: string, options: ReadOptions = {}): Promise<{ files: number; bytes: number }> {
    const onProgress = options.onProgress ?? noProgress;
    const started = Date.now();
    const limits = resolveLimits(options.limits);
    const target = resolve(dir);
    const m = await this.get(id);
    onProgress({ step: 'restore', phase: 'start', message: `${id} → ${target}` });
    const filters = options.paths?.map((p) => restorePath(p, limits));
    if (options.signal?.aborted) throw interrupted(id);
    const staging = await makeStaging(target);
    // Files are written and swapped through short aliases of the staging and target directories, so the length
    // of the target's own path does not decide which snapshots can be restored (`short-path.ts`).
    const stagingAlias = await shortPath(staging);
    let targetAlias: Awaited<ReturnType<typeof shortPath>> | undefined;
    try {
      const result = await extractChain(this.blobs, m, stagingAlias.path, {
        limits,
        onProgress,
        ...(filters ? { filters } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      }).catch((err: unknown) => {
        throw writeFailure(err, target, stagingAlias.path);
      });
      // A signal that came during the last synchronous steps is handled by the event loop only: let it run, and
      // stop before the swap (after the swap the restore is complete and stands).
      await new Promise((r) => setImmediate(r));
      if (options.signal?.aborted) throw interrupted(id);
      if (filters) {
        await mkdir(target, { recursive: true });
        targetAlias = await shortPath(target);
        await swapPaths(stagingAlias.path, targetAlias.path, filters);
      } else await swapInto(staging, target);
      onProgress({ step: 'restore', phase: 'end', message: `${result.files} entries, ${result.bytes} bytes`, elapsedMs: Date.now() - started });
      return result;
    } finally {
      await stagingAlias.release();
      await targetAlias?.release();
      await removeTree(staging);
    }
  }
}

/**
 * A caller's `paths` entry as guarded segments. A path the guard refuses is the caller's mistake, not a damaged
 * archive: throws `MnemaraError('INVALID_INPUT')` (exit 2) saying what `paths` accepts.
 */
function restorePath(path: string, limits: RestoreLimits): string[] {
  try {
    const segments = guardPath(path, limits);
    if (segments.length > 0) return segments;
    throw new MnemaraError('INVALID_INPUT', `invalid restore path "${path}": it names the whole snapshot`, {
      hint: 'Leave out --path (paths) to restore everything; otherwise name relative paths inside the snapshot, such as memories.',
    });
  } catch (err) {
    if (!(err instanceof UnsafeArchiveError)) throw err;
    throw new MnemaraError('INVALID_INPUT', `invalid restore path "${path}": ${err.reason}`, {
      hint: '--path (paths) takes relative paths inside the snapshot, such as memories or sessions/r1.jsonl: no leading /, no ".." segments.',
      cause: err,
    });
  }
}

/**
 * Opens (creating if needed) the directory snapshot store at `dir`. `config` is validated with
 * `SnapshotConfigSchema` (codec, level, ignore list, maxChainLength); throws `MnemaraError('INVALID_CONFIG')`.
 */
export async function openStore(dir: string, config: Partial<SnapshotConfig> = {}): Promise<DirectoryStore> {
  const parsed = SnapshotConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new MnemaraError('INVALID_CONFIG', `invalid snapshot options: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, {
      hint: 'Check the snapshot section of your mnemara config.',
    });
  }
  if (parsed.data.codec === 'zstd') {
    throw new MnemaraError('INVALID_CONFIG', 'codec zstd is not available: Node 20 zlib has no zstd', { hint: 'Use codec gzip (the default).' });
  }
  const store = new DirectoryStore(resolve(dir), parsed.data);
  await store.init();
  return store;
}
