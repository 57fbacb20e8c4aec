import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { logger } from '../../config/logger.js';
import { mnemaraHome } from '../../config/paths.js';

const log = logger('sandbox');

/** Entries older than this are removed at every write and by `sandbox prune` (ms). */
export const WORKSPACE_CACHE_MAX_AGE_MS = 7 * 24 * 3600_000;

/** `entry.json` of a cache entry: what the image holds and what it may be used for. */
const EntryMetaSchema = z.object({
  /** The snapshot the image is a copy of (taken right after its restore, before any agent ran). */
  snapshot: z.string().min(1),
  lineage: z.string().min(1),
  /** The snapshot store the snapshot is in (its root): the same lineage name in another store is another history. */
  store: z.string().min(1),
  /** Size of the image = the quota it was made with, bytes. */
  bytes: z.number().int().positive(),
  uid: z.number().int(),
  gid: z.number().int(),
  /** The sandbox image the restore ran in. */
  image: z.string().min(1),
  createdAt: z.string(),
});
export type WorkspaceCacheMeta = z.infer<typeof EntryMetaSchema>;

/** One cache entry: `$MNEMARA_HOME/workspace-cache/<lineage>/<snapshot>-<random>/{image.img,listing.json,entry.json}`. */
export interface WorkspaceCacheEntry extends WorkspaceCacheMeta {
  dir: string;
  imagePath: string;
  listingPath: string;
}

/** The cache's root directory under mnemara's home (`$MNEMARA_HOME`, or `config.home`). */
export function workspaceCacheDir(home: string = mnemaraHome()): string {
  return join(home, 'workspace-cache');
}

/** Lineage names are `/`-separated segments of `[A-Za-z0-9._-]`, so `+` cannot occur in one: a flat, unique key. */
function lineageDir(home: string, lineage: string): string {
  return join(workspaceCacheDir(home), lineage.replaceAll('/', '+'));
}

async function readEntry(dir: string): Promise<WorkspaceCacheEntry | null> {
  const text = await readFile(join(dir, 'entry.json'), 'utf8').catch(() => null);
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const meta = EntryMetaSchema.safeParse(json);
  if (!meta.success) return null;
  return { ...meta.data, dir, imagePath: join(dir, 'image.img'), listingPath: join(dir, 'listing.json') };
}

/** The newest complete entry of `lineage` in `store` (its root), or null (none, or unreadable). Never throws. */
export async function findCacheEntry(home: string, store: string, lineage: string): Promise<WorkspaceCacheEntry | null> {
  const dir = lineageDir(home, lineage);
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries = (await Promise.all(names.filter((n) => !n.startsWith('.')).map((n) => readEntry(join(dir, n))))).filter(
    (e): e is WorkspaceCacheEntry => e !== null && e.lineage === lineage && e.store === store,
  );
  return entries.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0] ?? null;
}

/**
 * Writes a new entry for `meta.lineage`: `copy(imagePath)` writes the image, `listing` is stored beside it;
 * all under a temporary name, renamed into place only when whole, then the lineage's other entries are
 * removed (one per lineage; the newest wins), then the caps applied (`pruneWorkspaceCache`). Throws what the
 * copy or the file system said (the temporary directory is removed).
 */
export async function writeCacheEntry(
  home: string,
  meta: WorkspaceCacheMeta,
  copy: (imagePath: string) => Promise<void>,
  listing: Buffer,
  maxBytes: number,
): Promise<WorkspaceCacheEntry> {
  const parent = lineageDir(home, meta.lineage);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const tmp = join(parent, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(tmp, { mode: 0o700 });
  try {
    await copy(join(tmp, 'image.img'));
    await writeFile(join(tmp, 'listing.json'), listing, { mode: 0o600 });
    await writeFile(join(tmp, 'entry.json'), JSON.stringify(EntryMetaSchema.parse(meta)), { mode: 0o600 });
    const final = join(parent, `${meta.snapshot}-${randomBytes(4).toString('hex')}`);
    await rename(tmp, final);
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      const other = join(parent, name);
      if (other !== final && !name.startsWith('.')) await rm(other, { recursive: true, force: true }).catch(() => {});
    }
    await pruneWorkspaceCache({ home, maxBytes });
    return (await readEntry(final)) as WorkspaceCacheEntry;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}

/**
 * Removes cache entries under `home` (default `$MNEMARA_HOME`): all of them (`all`), else those older than `WORKSPACE_CACHE_MAX_AGE_MS`, then the
 * oldest until the images' allocated bytes are within `maxBytes`, and temporary directories over an hour old
 * (a writer that died). Returns the directories removed. Never throws.
 */
export async function pruneWorkspaceCache(options: { home?: string; all?: boolean; maxBytes?: number } = {}): Promise<string[]> {
  const root = workspaceCacheDir(options.home);
  const removed: string[] = [];
  const entries: Array<{ dir: string; created: number; bytes: number }> = [];
  for (const lineage of await readdir(root).catch(() => [] as string[])) {
    const parent = join(root, lineage);
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      const dir = join(parent, name);
      const st = await stat(dir).catch(() => null);
      if (!st) continue;
      if (name.startsWith('.')) {
        if (options.all || Date.now() - st.mtimeMs > 3600_000) {
          await rm(dir, { recursive: true, force: true }).catch(() => {});
          removed.push(dir);
        }
        continue;
      }
      const entry = await readEntry(dir);
      const created = entry ? Date.parse(entry.createdAt) : 0;
      const blocks = entry ? ((await stat(entry.imagePath).catch(() => null))?.blocks ?? 0) * 512 : 0;
      entries.push({ dir, created: Number.isFinite(created) ? created : 0, bytes: blocks });
    }
  }
  entries.sort((a, b) => a.created - b.created);
  let total = entries.reduce((n, e) => n + e.bytes, 0);
  for (const e of entries) {
    const tooOld = Date.now() - e.created > WORKSPACE_CACHE_MAX_AGE_MS;
    if (!options.all && !tooOld && (options.maxBytes === undefined || total <= options.maxBytes)) continue;
    await rm(e.dir, { recursive: true, force: true }).catch(() => {});
    total -= e.bytes;
    removed.push(e.dir);
  }
  if (removed.length) log.info({ removed: removed.length }, 'removed workspace cache entries');
  return removed;
}
