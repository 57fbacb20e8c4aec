import { z } from 'zod';

/** Options of the snapshot store (issue 3). */
export const SnapshotConfigSchema = z.object({
  /** Store directory; default `$MNEMARA_HOME/store`. */
  store: z.string().optional(),
  codec: z.enum(['gzip', 'zstd', 'none']).default('gzip'),
  level: z.number().int().optional(),
  /** Glob-like patterns of paths never packed. */
  ignore: z.array(z.string()).default(['node_modules/.cache', '.git/objects/pack/tmp_*']),
  /** A chain longer than this is squashed into one full layer. */
  maxChainLength: z.number().int().positive().default(16),
  /**
   * How long a head move keeps retrying while other writers move the head (minutes). Past it the work is kept
   * on a branch `LINEAGE@<rollout-id>` (sessions) or `LINEAGE@<snapshot-id>` (`snapshot create`), never dropped.
   */
  headWaitMinutes: z.number().positive().default(10),
});
export type SnapshotConfig = z.infer<typeof SnapshotConfigSchema>;
