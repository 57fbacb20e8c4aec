import { z } from 'zod';

/** Options of the agent run (issue 4). */
export const AgentConfigSchema = z.object({
  model: z.string().default('claude-sonnet-4-5'),
  maxTurns: z.number().int().positive().default(50),
  /** Stop when input+output tokens of the run exceed this (tokens). */
  maxTokens: z.number().int().positive().default(2_000_000),
  /** `max_tokens` of one model call (tokens). */
  maxOutputTokens: z.number().int().positive().default(8192),
  /** Memory tool on (`memory_20250818`) so the agent can update memory during the run. */
  liveUpdate: z.boolean().default(true),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
