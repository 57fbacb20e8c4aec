/**
 * Restore from a cached workspace image (issue 15, item 3; docs/session.md "Restore what is missing"). A copy of
 * the sandbox's filesystem is taken right after a restore from a snapshot, before any agent ran (so it is that
 * snapshot exactly: nothing the agent did is ever in it). A later session whose start differs from it in few
 * paths starts from a private copy of that image, replaces those paths from the store, and checks the result
 * against the stored listing and the start's tree index before the agent runs; on any doubt it empties
 * /workspace and restores the whole tree as without a cache.
 */
import { readFile } from 'node:fs/promises';
import { logger } from '../config/logger.js';
import type { MnemaraConfig } from '../config/schema.js';
import { DockerSandbox } from '../sandbox/docker/docker-sandbox.js';
import { findCacheEntry, writeCacheEntry, type WorkspaceCacheEntry } from '../sandbox/docker/workspace-cache.js';
import { sandboxImageTag, sandboxUserIds } from '../sandbox/image-tag.js';
import type { Sandbox } from '../sandbox/types.js';
import { resolveLimits } from '../snapshot/limits.js';
import { encodeName } from '../snapshot/names.js';
import type { MergedTree, TreeEntry } from '../snapshot/tree.js';
import type { Manifest, RestoreLimits, SnapshotStore } from '../snapshot/types.js';
import type { SessionStart } from './types.js';
import type { ListedEntry, WorkspaceListing } from './workspace-listing.js';
import { pushAll } from '../config/arrays.js';

const log = logger('session');

/** More paths to replace than this: the whole restore is cheaper to reason about (and not much slower). */
const MAX_REPLACE = 1_000;

/** A session that starts from a cached image: the entry, what to replace, and the start's tree to check against. */
export interface CachedStart {
  entry: WorkspaceCacheEntry;
  /** The fewest paths (none under another) covering every difference between the entry's snapshot and the start. */
  replace: string[];
  /** The start snapshot's merged tree (from its tree index). */
  tree: MergedTree;
  /** The listing stored with the image (read now: the entry may be replaced or pruned while the session runs). */
  stored: WorkspaceListing;
}

/** A store that can read a snapshot's tree from its index (the directory store). */
type IndexedStore = SnapshotStore & { parentTree(m: Manifest, limits: RestoreLimits): Promise<MergedTree> };

function indexed(store: SnapshotStore): store is IndexedStore {
  return typeof (store as Partial<IndexedStore>).parentTree === 'function';
}

/** Whether the cache is on for this session: Docker, a quota disk possible (root), a cap above 0. */
export function cacheEnabled(config: MnemaraConfig): boolean {
  return config.sandbox.backend === 'docker' && config.sandbox.workspaceCacheBytes > 0 && config.sandbox.maxWorkspaceBytes > 0 && process.getuid?.() === 0;
}

/**
 * Step 1½: whether this session can start from the lineage's cached image, and what it must replace. Returns
 * the reason when it cannot (logged at debug by the caller): the start is not a snapshot, no entry, another
 * quota, user or sandbox image, a store without tree indexes, or more than 1,000 paths differ. Never throws.
 */
export async function planCachedStart(store: SnapshotStore, lineage: string, start: SessionStart, config: MnemaraConfig): Promise<CachedStart | { reason: string }> {
  try {
    if (!cacheEnabled(config)) return { reason: 'the workspace cache is off (not Docker, no quota disk, not root, or sandbox.workspaceCacheBytes 0)' };
    if ((start.kind !== 'head' && start.kind !== 'snapshot') || !start.snapshotId) return { reason: `a ${start.kind} start is not restored from a snapshot` };
    if (!indexed(store)) return { reason: 'the store cannot read tree indexes' };
    const entry = await findCacheEntry(config.home, store.root, lineage);
    if (!entry) return { reason: `no cached image of lineage ${lineage}` };
    const { uid, gid } = sandboxUserIds();
    const image = config.sandbox.image ?? (await sandboxImageTag());
    if (entry.bytes !== config.sandbox.maxWorkspaceBytes) return { reason: `the cached image is ${entry.bytes} bytes, the quota ${config.sandbox.maxWorkspaceBytes}` };
    if (entry.uid !== uid || entry.gid !== gid || entry.image !== image) return { reason: 'the cached image was made for another sandbox user or image' };
    const stored = parseStoredListing(await readFile(entry.listingPath));
    const limits = resolveLimits();
    const tree = await store.parentTree(await store.get(start.snapshotId), limits);
    if (entry.snapshot === start.snapshotId) return { entry, replace: [], tree, stored };
    const cached = await store.parentTree(await store.get(entry.snapshot), limits);
    const replace = coveringPaths(differences(cached, tree));
    if (replace.length > MAX_REPLACE) return { reason: `${replace.length} paths differ from the cached image (over ${MAX_REPLACE})` };
    return { entry, replace, tree, stored };
  } catch (err) {
    return { reason: `the cache could not be read: ${(err as Error).message}` };
  }
}

function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
  return a.type === b.type && a.mode === b.mode && a.size === b.size && a.mtime === b.mtime && a.linkpath === b.linkpath && a.hash === b.hash;
}

/** Every path whose entry differs between the trees, or that only one has (the root is never listed). */
function differences(a: MergedTree, b: MergedTree): string[] {
  const out: string[] = [];
  const bEntries = new Map<string, TreeEntry>();
  for (const { path, node } of b.walk()) bEntries.set(path, node.entry);
  for (const { path, node } of a.walk()) {
    const other = bEntries.get(path);
    if (!other || !sameEntry(node.entry, other)) out.push(path);
    bEntries.delete(path);
  }
  pushAll(out, bEntries.keys());
  return out;
}

/** The fewest paths covering `paths`: a path under another listed one is dropped. */
export function coveringPaths(paths: string[]): string[] {
  const all = new Set(paths);
  // Ancestors are looked up by name: in sorted order a sibling such as `src-link` falls between `src` and `src/a`.
  const covered = (p: string): boolean => {
    for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) if (all.has(p.slice(0, i))) return true;
    return false;
  };
  return [...all].filter((p) => !covered(p)).sort();
}

/**
 * Step 3 from the cache: in the sandbox (as its user) removes every path to replace, then extracts those the
 * start has from the store's guarded export (with their parent directories' modes and mtimes). Throws what the
 * sandbox or the store said.
 */
export async function fillFromCache(sandbox: Sandbox, store: SnapshotStore, plan: CachedStart, snapshotId: string): Promise<void> {
  if (plan.replace.length === 0) return;
  if (!sandbox.execBytes) throw new Error(`the ${sandbox.kind} sandbox cannot take raw names`);
  const list = Buffer.concat(plan.replace.flatMap((p) => [Buffer.from('./'), encodeName(p), Buffer.from([0])]));
  const r = await sandbox.execBytes(['bash', '-c', 'cd "$1" && xargs -0 -r rm -rf --', 'mnemara-replace', sandbox.workspaceDir], { stdin: list, maxOutputBytes: 64 * 1024 });
  if (r.exitCode !== 0) throw new Error(`could not remove the paths to replace: ${r.stderr.trim().slice(0, 300)}`);
  const present = plan.replace.filter((p) => plan.tree.get(p.split('/')) !== undefined);
  if (present.length) await sandbox.putArchive(await store.exportTar(snapshotId, { paths: present }), sandbox.workspaceDir);
}

/** The listing type letter a tree entry restores as. */
function listedType(e: TreeEntry): string {
  return e.type === 'dir' ? 'd' : e.type === 'symlink' ? 'l' : 'f';
}

/**
 * Whether the filled workspace is the start snapshot: returns null when it is, else what differs. `listing`
 * is the baseline taken after the fill; `plan.stored` the listing taken when the image was cached. Every path of
 * the start's tree, and no other, with its type and mode (and size, for files); and every path outside the
 * replaced ones and their ancestors exactly as stored (inode, ctime, size, mode: the copy keeps them, so the
 * image was not changed since it was cached).
 */
export function checkCachedFill(listing: WorkspaceListing, plan: CachedStart): string | null {
  const stored = plan.stored;
  const ancestors = new Set<string>(['']);
  for (const p of plan.replace) for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) ancestors.add(p.slice(0, i));
  const replaced = (path: string): boolean => plan.replace.some((r) => path === r || path.startsWith(`${r}/`));
  let count = 0;
  for (const { path, node } of plan.tree.walk()) {
    count += 1;
    const got = listing.entries.get(path);
    if (!got) return `${JSON.stringify(path)} is missing`;
    const e = node.entry;
    if (got.type !== listedType(e)) return `${JSON.stringify(path)} is a ${got.type}, not a ${e.type}`;
    if (got.type !== 'l' && parseInt(got.mode, 8) !== (e.mode & 0o7777)) return `${JSON.stringify(path)} has mode ${got.mode}, not ${(e.mode & 0o7777).toString(8)}`;
    if (e.type === 'file' && got.size !== e.size) return `${JSON.stringify(path)} has ${got.size} bytes, not ${e.size}`;
    if (ancestors.has(path) || replaced(path)) continue;
    const was = stored.entries.get(path);
    if (!was || !sameListed(was, got)) return `${JSON.stringify(path)} is not as it was cached`;
  }
  if (listing.entries.size !== count + 1) return `the workspace holds ${listing.entries.size - 1 - count} path(s) the snapshot does not`;
  return null;
}

function sameListed(a: ListedEntry, b: ListedEntry): boolean {
  return a.type === b.type && a.mode === b.mode && a.inode === b.inode && a.size === b.size && a.ctime === b.ctime;
}

/** Empties /workspace (the sandbox user owns all of it) and restores the whole snapshot, as without a cache. */
export async function refillWhole(sandbox: Sandbox, store: SnapshotStore, snapshotId: string): Promise<void> {
  const r = await sandbox.exec(['bash', '-c', 'chmod -R u+rwX -- "$1" && find "$1" -mindepth 1 -delete', 'mnemara-empty', sandbox.workspaceDir], { timeoutMs: 10 * 60_000 });
  if (r.exitCode !== 0) throw new Error(`could not empty the workspace: ${r.stderr.trim().slice(0, 300)}`);
  await sandbox.putArchive(await store.exportTar(snapshotId), sandbox.workspaceDir);
}

/** A listing as stored beside a cached image (JSON; names as `names.ts` escapes them). */
export function serializeListing(listing: WorkspaceListing): Buffer {
  return Buffer.from(JSON.stringify({ takenAt: listing.takenAt, entries: [...listing.entries] }));
}

/** Reads a stored listing back; throws when it is not one. */
export function parseStoredListing(bytes: Buffer): WorkspaceListing {
  const json = JSON.parse(bytes.toString('utf8')) as { takenAt: number; entries: Array<[string, ListedEntry]> };
  if (typeof json.takenAt !== 'number' || !Array.isArray(json.entries)) throw new Error('not a stored listing');
  return { takenAt: json.takenAt, entries: new Map(json.entries) };
}

/**
 * Caches the sandbox's workspace as the image of `snapshotId` (called right after its restore and baseline
 * listing, before anything else writes there). Logs and returns false when it cannot (no image kept, fsfreeze
 * or cp failed, the disk is full); never throws: a session never fails for its cache.
 */
export async function keepInCache(sandbox: Sandbox, store: SnapshotStore, config: MnemaraConfig, lineage: string, snapshotId: string, listing: WorkspaceListing): Promise<boolean> {
  if (!(sandbox instanceof DockerSandbox) || sandbox.workspaceQuotaBytes === 0) return false;
  try {
    const { uid, gid } = sandboxUserIds();
    const image = config.sandbox.image ?? (await sandboxImageTag());
    await writeCacheEntry(
      config.home,
      { snapshot: snapshotId, lineage, store: store.root, bytes: sandbox.workspaceQuotaBytes, uid, gid, image, createdAt: new Date().toISOString() },
      (dest) => sandbox.copyWorkspaceImage(dest),
      serializeListing(listing),
      config.sandbox.workspaceCacheBytes,
    );
    return true;
  } catch (err) {
    log.debug({ err: (err as Error).message }, 'the workspace image was not cached');
    return false;
  }
}
