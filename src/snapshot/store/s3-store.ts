import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { MnemaraError } from '../../config/errors.js';
import { logger } from '../../config/logger.js';
import { noProgress, type OnProgress } from '../../config/progress.js';
import type { SnapshotConfig } from '../../config/snapshot.js';
import { SnapshotCorruptError, SnapshotNotFoundError } from '../errors.js';
import { isValidLineage, branchesOf, SNAPSHOT_ID_RE } from '../id.js';
import type { MergedTree } from '../tree.js';
import type { CreateSnapshotOptions, Manifest, RestoreLimits, SnapshotSource, SnapshotStore } from '../types.js';
import { DirectoryStore, type ReadOptions } from './dir-store.js';
import { parseManifest } from './manifests.js';
import { indexDigests } from '../tree-index.js';
import { S3Blobs, type S3UploadOptions } from './s3-blobs.js';
import { endpointFromEnv, makeS3Client, type S3Location } from './s3-client.js';
import { S3Objects } from './s3-objects.js';
import { cachedQuirks, type S3Quirks } from './s3-probe.js';
import { forEachLimit, S3Refs } from './s3-refs.js';

const log = logger('snapshot');

/** Options of `S3Store` beyond its location. */
export interface S3StoreOptions extends S3UploadOptions {
  /** Directory of the local cache (blobs, tree indexes, manifests, probe result); one per store. */
  cacheDir: string;
  /** Passed to `makeS3Client` (tests, path-style). */
  forcePathStyle?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * The local cache directory of the store at `location` under `<home>/cache/s3/`: one per endpoint, bucket and
 * prefix (a 16-hex hash of the three), so two stores never mix their manifests.
 */
export function s3CacheDir(home: string, location: S3Location, env: NodeJS.ProcessEnv = process.env): string {
  const key = createHash('sha256')
    .update(`${endpointFromEnv(env) ?? 'aws'}\n${location.bucket}\n${location.prefix}`)
    .digest('hex')
    .slice(0, 16);
  return join(home, 'cache', 's3', `${location.bucket}-${key}`);
}

/**
 * `SnapshotStore` on S3-compatible object storage (issue 14; DESIGN.md "Snapshot store"), with the directory
 * store's layout under `s3://bucket/prefix/`: `snapshots/<id>/manifest.json`, `blobs/sha256/<hex>`,
 * `refs/lineages/<name>`. Packing and restoring run on a local cache that is itself a `DirectoryStore`
 * (`cacheDir`): `create` packs there, uploads the missing blobs, then writes the manifest with `If-None-Match: *`
 * (a snapshot exists once its manifest does, so a killed upload lists nothing); a restore downloads only the blobs
 * the cache lacks, each checked by digest. Heads move by compare-and-swap on one object (`S3Refs`).
 */
export class S3Store implements SnapshotStore {
  readonly root: string;
  readonly objects: S3Objects;
  readonly cache: DirectoryStore;
  readonly blobs: S3Blobs;
  readonly refs: S3Refs;
  readonly branches: S3Refs;
  private quirksP: Promise<S3Quirks> | undefined;

  constructor(
    readonly location: S3Location,
    readonly config: SnapshotConfig,
    readonly options: S3StoreOptions,
    client: S3Client = makeS3Client({ env: options.env, ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}) }),
    writeClient: S3Client = makeS3Client({ env: options.env, maxAttempts: 1, requestTimeoutMs: 15_000, ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}) }),
  ) {
    this.objects = new S3Objects(client, location);
    this.root = this.objects.url;
    this.cache = new DirectoryStore(options.cacheDir, config);
    this.blobs = new S3Blobs(this.objects, this.cache.blobs, options);
    this.refs = new S3Refs(this.objects, writeClient, 'lineages', () => this.quirks());
    this.branches = new S3Refs(this.objects, writeClient, 'branches', () => this.quirks());
  }

  /** The server's conditional-write behaviour, probed once per store and cached in `cacheDir/quirks.json`. */
  quirks(options: { fresh?: boolean } = {}): Promise<S3Quirks> {
    if (options.fresh) this.quirksP = cachedQuirks(this.objects, join(this.options.cacheDir, 'quirks.json'), { fresh: true });
    this.quirksP ??= cachedQuirks(this.objects, join(this.options.cacheDir, 'quirks.json'));
    const p = this.quirksP;
    p.catch(() => {
      if (this.quirksP === p) this.quirksP = undefined; // a failed probe is retried next time
    });
    return p;
  }

  async init(): Promise<void> {
    await this.cache.init();
  }

  private manifestRel(id: string): string {
    return `snapshots/${id}/manifest.json`;
  }

  /** The manifest: from the cache when it was read or written before (manifests never change), else from the store. */
  async get(id: string): Promise<Manifest> {
    if (!SNAPSHOT_ID_RE.test(id)) throw new SnapshotNotFoundError(id, this.root);
    try {
      return await this.cache.manifests.get(id);
    } catch (err) {
      if (!(err instanceof SnapshotNotFoundError)) log.warn({ id, err: (err as Error).message }, 'cached manifest unreadable; reading the store');
    }
    const got = await this.objects.getText(this.manifestRel(id));
    if (!got) throw new SnapshotNotFoundError(id, this.root);
    const m = parseManifest(id, got.text);
    await this.cache.manifests.write(m).catch((err: Error) => log.warn({ id, err: err.message }, 'could not cache manifest'));
    return m;
  }

  async list(options: { lineage?: string } = {}): Promise<Manifest[]> {
    const ids = (await this.objects.list('snapshots'))
      .map((k) => /^snapshots\/([^/]+)\/manifest\.json$/.exec(k)?.[1])
      .filter((id): id is string => id !== undefined && SNAPSHOT_ID_RE.test(id))
      .sort();
    const found = new Map<string, Manifest>();
    await forEachLimit(ids, 8, async (id) => {
      try {
        found.set(id, await this.get(id));
      } catch (err) {
        if (!(err instanceof SnapshotNotFoundError)) log.warn({ id, err: (err as Error).message }, 'skipping unreadable snapshot');
      }
    });
    const all = ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
    return options.lineage === undefined ? all : all.filter((m) => m.lineage === options.lineage);
  }

  getHead(lineage: string): Promise<string | null> {
    return this.refs.get(lineage);
  }

  listHeads(): Promise<Record<string, string>> {
    return this.refs.all();
  }

  async advanceHead(lineage: string, expected: string | null, next: string): Promise<void> {
    // A head may only name a complete snapshot, and complete means in the store, not only in this cache.
    if (!SNAPSHOT_ID_RE.test(next) || !(await this.objects.head(this.manifestRel(next)))) throw new SnapshotNotFoundError(next, this.root);
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
      if (expected !== null) await this.branches.remove(name, expected);
      return;
    }
    if (!SNAPSHOT_ID_RE.test(next) || !(await this.objects.head(this.manifestRel(next)))) throw new SnapshotNotFoundError(next, this.root);
    await this.branches.advance(name, expected, next);
  }

  /**
   * Makes the cache hold what reading `m` needs: every layer (`'layers'`), only the tree index when it has one
   * (`'index'`, what a delta on top of it needs), or both (`'all'`, what a delta that squashes the chain needs). Throws `SnapshotCorruptError` naming `m` for a blob the store
   * lacks or that does not match its digest.
   */
  async fetch(m: Manifest, what: 'layers' | 'index' | 'all', onProgress: OnProgress = noProgress): Promise<number> {
    await this.cache.manifests.write(m);
    const index = indexDigests(m);
    const layers = [...new Set(m.layers.map((l) => l.digest))];
    const digests = what === 'index' && index.length ? index : what === 'all' ? [...layers, ...index] : layers;
    let bytes = 0;
    for (const digest of digests) {
      const got = await this.blobs.fetch(digest, onProgress);
      if (got === 'missing') throw new SnapshotCorruptError(m.id, `blob ${digest} is missing from ${this.root}`);
      if (typeof got === 'object') throw new SnapshotCorruptError(m.id, `blob ${digest} in ${this.root} hashes to ${got.mismatch}`);
      bytes += got;
    }
    return bytes;
  }

  /** Uploads what `m` names and the store lacks (layers, tree index), then its manifest. Returns bytes uploaded. */
  async publish(m: Manifest, onProgress: OnProgress = noProgress): Promise<number> {
    const digests = [...new Set([...m.layers.map((l) => l.digest), ...indexDigests(m)])];
    let sent = 0;
    for (const d of digests) sent += await this.blobs.upload(d, onProgress);
    await this.putManifest(m);
    return sent;
  }

  /**
   * Writes `m`'s manifest (the snapshot becomes visible); call only once its blobs are in the store. An identical
   * manifest already there is success; a different one throws `MnemaraError('STORE_CORRUPT')`.
   */
  async putManifest(m: Manifest): Promise<void> {
    const text = `${JSON.stringify(m, null, 2)}\n`;
    if ((await this.objects.putIfAbsent(this.manifestRel(m.id), text)) === 'exists') {
      const there = await this.objects.getText(this.manifestRel(m.id));
      if (there && there.text !== text && JSON.stringify(parseManifest(m.id, there.text)) !== JSON.stringify(m)) {
        throw new MnemaraError('STORE_CORRUPT', `snapshot ${m.id} already exists in ${this.root} with other content`, {
          hint: 'Snapshot ids are unique per creation; check that two stores were not copied into each other by hand.',
        });
      }
    }
  }

  async create(source: SnapshotSource, options: CreateSnapshotOptions): Promise<Manifest> {
    const onProgress = options.onProgress ?? noProgress;
    if (!isValidLineage(options.lineage)) return this.cache.create(source, options); // throws the directory store's INVALID_INPUT
    const parentId = options.parent === undefined ? await this.getHead(options.lineage) : options.parent;
    if (parentId) {
      const parent = await this.get(parentId);
      const squashes = parent.layers.length + 1 > this.config.maxChainLength;
      // A squash reads the parent's tree index and then its whole chain.
      await this.fetch(parent, squashes ? 'all' : parent.treeIndex ? 'index' : 'layers', onProgress);
    }
    await this.cache.init();
    const m = await this.cache.create(source, { ...options, parent: parentId });
    try {
      await this.publish(m, onProgress);
    } catch (err) {
      await this.cache.manifests.remove(m.id).catch(() => {});
      throw err;
    }
    return m;
  }

  /** Pass 1 over a snapshot (see `DirectoryStore.tree`), after fetching its layers. */
  async tree(id: string, options: { hashContent?: boolean | ((segments: string[]) => boolean); limits?: Partial<RestoreLimits> } = {}): Promise<MergedTree> {
    await this.fetch(await this.get(id), 'layers');
    return this.cache.tree(id, options);
  }

  async exportTar(id: string, options: ReadOptions = {}): Promise<Readable> {
    await this.fetch(await this.get(id), 'layers', options.onProgress);
    return this.cache.exportTar(id, options);
  }

  async restoreToDirectory(id: string, dir: string, options: ReadOptions = {}): Promise<{ files: number; bytes: number }> {
    await this.fetch(await this.get(id), 'layers', options.onProgress);
    return this.cache.restoreToDirectory(id, dir, options);
  }
}
