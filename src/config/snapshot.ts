import { z } from 'zod';

/** Build caches left out of every snapshot by default (documented in docs/snapshots.md). */
export const DEFAULT_SNAPSHOT_IGNORE: readonly string[] = [
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  'node_modules/.cache',
  '.next/cache',
  '.parcel-cache',
  '.turbo',
  '.gradle/caches',
  '.git/objects/pack/tmp_*',
];

/** Options of the snapshot store (issue 3). */
export const SnapshotConfigSchema = z.object({
  /** Store directory; default `$MNEMARA_HOME/store`. */
  store: z.string().optional(),
  codec: z.enum(['gzip', 'zstd', 'none']).default('gzip'),
  level: z.number().int().optional(),
  /**
   * Glob-like patterns of paths never packed (at any depth unless they start with `/`). The default leaves out
   * pure build caches, which tools rebuild and which would show in every `snapshot diff`; setting `ignore`
   * replaces the whole list (keep `DEFAULT_SNAPSHOT_IGNORE`'s entries you want).
   */
  ignore: z.array(z.string()).default([...DEFAULT_SNAPSHOT_IGNORE]),
  /** A chain longer than this is squashed into one full layer. */
  maxChainLength: z.number().int().positive().default(16),
  /**
   * How long a head move keeps retrying while other writers move the head (minutes). Past it the work is kept
   * on a branch `LINEAGE@<rollout-id>` (sessions) or `LINEAGE@<snapshot-id>` (`snapshot create`), never dropped.
   */
  headWaitMinutes: z.number().positive().default(10),
  /**
   * Keep credential files the run wrote (a PEM key, a service-account JSON, `.netrc`, …) in the workspace
   * snapshot. Off: they are left out, listed in the manifest's `skipped` and named in the run summary. Only the
   * user may set it (a repository's own config cannot).
   */
  keepCredentialFiles: z.boolean().default(false),
  /**
   * Days the files a run set aside instead of packing (`<home>/left-out/<rollout-id>/`: credential files and
   * files holding a token) are kept for the user; `mnemara gc` removes a run's folder once its newest file is older.
   */
  leftOutDays: z.number().nonnegative().default(7),
});
export type SnapshotConfig = z.infer<typeof SnapshotConfigSchema>;
