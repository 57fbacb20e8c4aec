import { posix } from 'node:path';
import { z } from 'zod';

/** A layout folder stays inside the workspace: relative, not `.`, never climbing out. */
const inside = (v: string): boolean => {
  const n = posix.normalize(v.replaceAll('\\', '/'));
  return v !== '' && !posix.isAbsolute(n) && n !== '.' && n !== '..' && !n.startsWith('../');
};
const FOLDER = 'a relative folder inside the workspace, such as "memories" or "agents/reviewer/memories"';

/** The memory layout (DESIGN.md): folders relative to the workspace root, checked when the config is loaded. */
export const MemoryLayoutSchema = z.object({
  memoriesDir: z.string().refine(inside, FOLDER).default('memories'),
  sessionsDir: z.string().refine(inside, FOLDER).default('sessions'),
});
export type MemoryLayout = z.infer<typeof MemoryLayoutSchema>;

/** Options of the memory pipeline (issue 5). Budgets in tokens. */
export const MemoryConfigSchema = z.object({
  layout: MemoryLayoutSchema.default({ memoriesDir: 'memories', sessionsDir: 'sessions' }),
  read: z.boolean().default(true),
  generate: z.boolean().default(true),
  /** `model` when a model is configured, `deterministic` otherwise; `auto` picks. */
  extractor: z.enum(['auto', 'model', 'deterministic']).default('auto'),
  maxRawMemories: z.number().int().positive().default(256),
  memoryMdTokens: z.number().int().positive().default(8000),
  summaryTokens: z.number().int().positive().default(1500),
  /** Budget of the memory block in the system prompt. */
  readBudgetTokens: z.number().int().positive().default(1500),
  /** The model of the memory pipeline (both phases); default: `agent.model`. */
  model: z.string().min(1).optional(),
  /** The pipeline model's context window (tokens): phase 1 gives the transcript 60 % of it. */
  contextTokens: z.number().int().min(4000).default(200_000),
});
export type MemoryConfig = z.infer<typeof MemoryConfigSchema>;
