/**
 * The snapshot store (issue 3; DESIGN.md, "Snapshot store"). Open one with `openStore(dir)`; the default
 * directory is `defaultStoreDir()` from `config/paths.ts`.
 */
export { openStore, DirectoryStore, type ReadOptions } from './store/dir-store.js';
export { HeadConflictError, SnapshotNotFoundError, SnapshotCorruptError, UnsafeArchiveError, SourceChangedError } from './errors.js';
export { DEFAULT_RESTORE_LIMITS } from './limits.js';
export { isValidLineage } from './id.js';
export type { ExportOwner } from './export.js';
export * from './types.js';
export { openSnapshotStore, isS3Store, type AnyStore } from './store/open.js';
export type { S3Store, S3StoreOptions } from './store/s3-store.js';
export { isS3Url, parseS3Url, type S3Location } from './store/s3-url.js';
