/**
 * The agent run (issue 4): a Claude tool loop on `@anthropic-ai/sdk`, tools executed in a `Sandbox`, and the
 * transcript. See docs/agent.md.
 */
export { runAgent, type RunAgentOptions, type RunResult } from './run.js';
export {
  createModelClient,
  DEFAULT_MODEL,
  DEFAULT_MAX_RETRIES,
  LOCAL_PLACEHOLDER_KEY,
  type ModelClient,
  type ModelClientOptions,
} from './client.js';
export { describeModelError } from './model-errors.js';
export type { AgentEvent, OnAgentEvent } from './events.js';
export { newRolloutId, ROLLOUT_ID_PATTERN, isSafeId } from './ids.js';
export { buildSystemPrompt, fenceMemory } from './prompt.js';
export { createToolbox, DEFAULT_TOOL_LIMITS, toolStyleFor, type Toolbox, type ToolboxOptions, type ToolCallDetail, type ToolLimits, type ToolStyle } from './tools/index.js';
export { TranscriptWriter, placeTranscript, redactDeep, type NewRecord, type Redact } from '../transcript/writer.js';
