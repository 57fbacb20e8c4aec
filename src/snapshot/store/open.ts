import { mnemaraHome } from '../../config/paths.js';
import type { SnapshotConfig } from '../../config/snapshot.js';
import { openStore, type DirectoryStore } from './dir-store.js';
import { isS3Url, parseS3Url } from './s3-url.js';
import type { S3Store, S3StoreOptions } from './s3-store.js';

/** Either backend of `SnapshotStore`; both add `init`, `tree` and options on reads to the interface. */
export type AnyStore = DirectoryStore | S3Store;

/**
 * Opens the snapshot store named by `location`: `s3://BUCKET/PREFIX` opens an `S3Store` (its local cache under
 * `<home>/cache/s3/`), anything else the directory store at that path (created if needed). `config` as for
 * `openStore`. Throws `MnemaraError('INVALID_CONFIG')` for bad options, `('INVALID_INPUT')` for a bad URL or path.
 * Opening does not contact the server; the first request does.
 */
export async function openSnapshotStore(
  location: string,
  config: Partial<SnapshotConfig> = {},
  options: { home?: string; env?: NodeJS.ProcessEnv } & Partial<S3StoreOptions> = {},
): Promise<AnyStore> {
  if (!isS3Url(location)) return openStore(location, config);
  const env = options.env ?? process.env;
  // Loaded only for an S3 store: the SDK adds ~0.4 s of CPU to every command's start.
  const { S3Store, s3CacheDir } = await import('./s3-store.js');
  const dir = await openStore(options.cacheDir ?? s3CacheDir(options.home ?? mnemaraHome(env), parseS3Url(location), env), config);
  const store = new S3Store(parseS3Url(location), dir.config, { ...options, cacheDir: dir.root, env });
  return store;
}

/** True when `store` is an `S3Store` (checked by its location, without loading the SDK). */
export function isS3Store(store: AnyStore): store is S3Store {
  return isS3Url(store.root);
}
