import { z } from 'zod';

/**
 * Kinds of lesson (issue 5). `preference` = stated by the user; `fact` = about the workspace or environment;
 * `task_state` = unfinished work a later run should pick up.
 */
export const MemoryKindSchema = z.enum(['procedure', 'pitfall', 'preference', 'fact', 'task_state']);
export type MemoryKind = z.infer<typeof MemoryKindSchema>;

/** Where a lesson was seen: 1-based transcript line numbers of the records that show it. */
export const EvidenceSchema = z.object({
  lines: z.array(z.number().int().positive()),
  /** A short quote (redacted) of what the lines show, at most a few hundred characters. */
  quote: z.string().optional(),
});

/** One lesson from one rollout (phase 1 output), as stored in `raw_memories/<rollout-id>.md`. */
export const RawMemorySchema = z.object({
  kind: MemoryKindSchema,
  /** The lesson, one or two sentences, self-contained. */
  text: z.string().min(1),
  evidence: EvidenceSchema,
  /** 1 (minor) … 5 (saves a run from failing). */
  importance: z.number().int().min(1).max(5),
  keywords: z.array(z.string()),
});
export type RawMemory = z.infer<typeof RawMemorySchema>;

/** Who produced a file: `model:<model-name>` or `deterministic`. */
export type Producer = `model:${string}` | 'deterministic';

/** Front matter of `rollout_summaries/<id>.md` and `raw_memories/<id>.md`. */
export const ArtifactFrontMatterSchema = z.object({
  rolloutId: z.string(),
  /** ISO 8601 UTC of the rollout's start. */
  time: z.string(),
  outcome: z.string(),
  /** Path of the source transcript, relative to the workspace root. */
  source: z.string(),
  producer: z.string(),
  promptVersion: z.string(),
});
export type ArtifactFrontMatter = z.infer<typeof ArtifactFrontMatterSchema>;

/** Phase 1's account of one rollout (task, what was tried, what worked, outcome). */
export const RolloutSummarySchema = z.object({
  task: z.string(),
  tried: z.array(z.string()),
  worked: z.array(z.string()),
  outcome: z.string(),
  filesChanged: z.array(z.string()),
});
export type RolloutSummary = z.infer<typeof RolloutSummarySchema>;

/** Everything phase 1 produces for one rollout. An empty `memories` is valid: nothing worth keeping. */
export interface Extraction {
  meta: ArtifactFrontMatter;
  summary: RolloutSummary;
  memories: RawMemory[];
  /** Model calls phase 1 made for it (1, or 2 after a retry); absent on the deterministic path. */
  modelCalls?: number;
}
