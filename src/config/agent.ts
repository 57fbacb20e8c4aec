import { z } from 'zod';

/** Options of the agent run (issue 4). */
export const AgentConfigSchema = z.object({
  /** Default: the newest Sonnet in the SDK's model list (`claude-sonnet-4-5` reaches end-of-life 2026-11-30). */
  model: z.string().trim().min(1).default('claude-sonnet-5-5'),
  maxTurns: z.number().int().positive().default(50),
  /** Stop when the run's tokens (input + output + cache read + cache creation, summed over calls) exceed this. */
  maxTokens: z.number().int().positive().default(2_000_000),
  /** `max_tokens` of one model call (tokens). */
  maxOutputTokens: z.number().int().positive().default(8192),
  /** Memory tool on (`memory_20250818`) so the agent can update memory during the run. */
  liveUpdate: z.boolean().default(true),
  /**
   * Tool definitions sent to the model: `anthropic` (typed tools: bash_20250124, text_editor_20250728,
   * memory_20250818), `portable` (the same tools as JSON-schema tools, for endpoints that do not know the typed
   * ones), or `auto`: anthropic for the Anthropic API (*.anthropic.com or no base URL), portable for any other.
   */
  tools: z.enum(['auto', 'anthropic', 'portable']).default('auto'),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
