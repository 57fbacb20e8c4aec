import { z } from 'zod';
import { MnemaraError } from '../../config/errors.js';
import { logger } from '../../config/logger.js';
import type { ModelClient } from '../../agent/client.js';
import type { MemoryEntry } from '../memory-md.js';
import type { Prompt } from '../prompts.js';
import { redact, redactDeep } from '../redact.js';
import type { Tombstone } from '../state.js';
import { MemoryKindSchema } from '../types.js';
import type { RolloutInput } from './inputs.js';
import { structuredCall } from '../structured-call.js';

/** One entry as the model returns it (tool `write_memory`), validated with zod. */
export const ModelEntrySchema = z.object({
  id: z.string().regex(/^m-[0-9a-f]{8}$/).optional().nullable(),
  kind: MemoryKindSchema,
  text: z.string().min(1).max(1200),
  sources: z.array(z.string()).min(1),
  importance: z.number().int().min(1).max(5),
});
export const ModelOutputSchema = z.object({ entries: z.array(ModelEntrySchema).max(400) });
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

const TOOL_NAME = 'write_memory';
const log = logger('memory.phase2');

/**
 * The phase 2 data block: one JSON document, with `<` escaped so that no text inside can close the
 * `<memory_data>` fence. Redacted again here: nothing secret goes to the model.
 */
export function phase2Data(current: MemoryEntry[], rollouts: RolloutInput[], forgotten: Record<string, Tombstone>): string {
  const doc = redactDeep({
    current_entries: current.map((e) => ({ id: e.id, kind: e.kind, text: e.text, sources: e.sources, importance: e.importance, edited: e.edited })),
    raw_memories: rollouts.flatMap((r) => r.memories.map((m) => ({ rollout: r.rolloutId, time: r.time, kind: m.kind, text: m.text, importance: m.importance, keywords: m.keywords }))),
    forgotten: Object.values(forgotten).map((t) => t.text),
  });
  return `<memory_data>\n${JSON.stringify(doc, null, 1).replace(/</g, '\\u003c')}\n</memory_data>`;
}

/**
 * One structured phase 2 call: the model must call `write_memory` with `{entries}`. An answer that fails
 * validation (or calls no tool) is sent back once with the validation error; a second failure throws.
 * Every returned text is redacted. Returns the entries and the number of model calls made (1 or 2).
 * @throws MnemaraError `MODEL_OUTPUT_INVALID` after the retry; SDK errors (network, 4xx/5xx after the SDK's own retries) pass through.
 */
export async function consolidateWithModel(options: {
  client: ModelClient;
  model: string;
  prompt: Prompt;
  data: string;
  /** max_tokens of the call (default 16,000: a full 8,000-token handbook plus its JSON; below the SDK's non-streaming limit). */
  maxTokens?: number;
}): Promise<{ entries: ModelEntry[]; calls: number }> {
  const { client, model, prompt, data } = options;
  const result = await structuredCall({
    client,
    model,
    system: prompt.text,
    maxTokens: options.maxTokens ?? 16_000,
    toolName: TOOL_NAME,
    toolDescription: 'Write the complete new memory handbook as a list of entries.',
    schema: ModelOutputSchema,
    content: data,
    shorter: 'merge more and keep entries shorter.',
    callWith: 'with the complete handbook.',
    onRejected: (attempt, problem) => log.info({ attempt, problem }, 'phase 2 model output rejected'),
  });
  if (!result.ok) {
    throw new MnemaraError('MODEL_OUTPUT_INVALID', `phase 2: the model's answer was invalid twice (${result.problem})`, {
      hint: 'The previous MEMORY.md is kept. Run `mnemara memory consolidate` again, or use the deterministic consolidation (memory.extractor: deterministic).',
    });
  }
  return { entries: result.value.entries.map((e) => ({ ...e, text: redact(e.text) })), calls: result.calls };
}
