import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { MnemaraError } from '../config/errors.js';
import { writeFileAtomic } from './atomic.js';

/**
 * `memories/.state.json`: the memory layout's bookkeeping, written only by mnemara.
 * - `rollouts`: per rollout, phase 1 status (`extracted`, `failed` with the error and attempt count, or
 *   `forgotten` once it fell out of the newest N raw memories) and a hash of its raw memories file;
 * - `consolidation`: hash of the raw memory inputs of the last consolidation (unchanged → phase 2 is a no-op);
 * - `written`: entry id → normalized-text hash of what mnemara last wrote to MEMORY.md, to tell a person's
 *   edits and deletions from its own; `pending` is the same for a write in flight (two-phase, so a crash
 *   between writing MEMORY.md and this file is recognised);
 * - `forgotten`: tombstones of entries a person deleted or `memory forget` removed (with their text, so that
 *   the same lesson from old raw memories stays forgotten);
 * - `uses` / `fileUses`: how often runs looked at an entry / a memory file (use signal), and which
 *   rollouts were already counted.
 */

export const STATE_FORMAT = 1;

const RolloutStateSchema = z.object({
  status: z.enum(['extracted', 'failed', 'forgotten']),
  /** ISO time of the rollout's start (from the artifact front matter), for ordering. */
  time: z.string().default(''),
  producer: z.string().optional(),
  /** sha256 of the raw memories file as written. */
  rawHash: z.string().optional(),
  error: z.string().optional(),
  attempts: z.number().int().nonnegative().default(0),
  /** Extraction order (0, 1, 2 …): breaks ties between rollouts with the same time. */
  seq: z.number().int().nonnegative().optional(),
  updatedAt: z.string(),
});
export type RolloutState = z.infer<typeof RolloutStateSchema>;

const WrittenSchema = z.object({
  memoryMdHash: z.string(),
  /** entry id → sha256 of its normalized text. */
  entries: z.record(z.string(), z.string()),
  /** ids of entries marked `edited`. */
  edited: z.array(z.string()).default([]),
});
export type Written = z.infer<typeof WrittenSchema>;

const TombstoneSchema = z.object({
  text: z.string(),
  at: z.string(),
  /** `corrected-by-agent` / `deleted-by-agent`: a run's agent changed MEMORY.md with evidence (`agent-proposals.ts`). */
  reason: z.enum(['deleted-by-hand', 'forget-command', 'corrected-by-agent', 'deleted-by-agent', 'superseded', 'capped']),
  /**
   * `superseded` / `capped` (issue 12): the entry's own time (ISO, its newest source rollout). Raw memories as
   * old as that cannot bring it back; a later rollout that learns it again can (it is evidence anew).
   */
  entryAt: z.string().optional(),
});
export type Tombstone = z.infer<typeof TombstoneSchema>;

export const MemoryStateSchema = z.object({
  format: z.literal(STATE_FORMAT),
  rollouts: z.record(z.string(), RolloutStateSchema).default({}),
  consolidation: z
    .object({ inputHash: z.string(), at: z.string(), producer: z.string(), promptVersion: z.string() })
    .nullable()
    .default(null),
  written: WrittenSchema.nullable().default(null),
  pending: WrittenSchema.nullable().default(null),
  forgotten: z.record(z.string(), TombstoneSchema).default({}),
  uses: z.record(z.string(), z.number().int().nonnegative()).default({}),
  fileUses: z.record(z.string(), z.number().int().nonnegative()).default({}),
  usesCounted: z.array(z.string()).default([]),
  /** `REDACTION_VERSION` the layout's files were last redacted with (0: never, or by a mnemara before it existed). */
  redactedWith: z.number().int().nonnegative().default(0),
});
export type MemoryState = z.infer<typeof MemoryStateSchema>;

export function emptyState(): MemoryState {
  return MemoryStateSchema.parse({ format: STATE_FORMAT });
}

/**
 * Reads `.state.json`; a missing file is an empty state.
 * @throws MnemaraError `INVALID_INPUT` when the file exists but is not valid JSON of this format.
 */
export async function loadState(file: string): Promise<MemoryState> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badState(file, `is not valid JSON (${(err as Error).message})`);
  }
  const parsed = MemoryStateSchema.safeParse(value);
  if (!parsed.success) throw badState(file, `does not match format ${STATE_FORMAT}: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

function badState(file: string, why: string): MnemaraError {
  return new MnemaraError('INVALID_INPUT', `${file} ${why}`, {
    hint: 'Restore it from the last snapshot, or move it away: mnemara then re-extracts every transcript (forgotten entries may come back).',
  });
}

/** Writes `.state.json` atomically. */
export async function saveState(file: string, state: MemoryState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}
