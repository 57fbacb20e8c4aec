import type Anthropic from '@anthropic-ai/sdk';
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

function describeIssues(err: z.ZodError): string {
  return err.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
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
  const tool: Anthropic.Tool = {
    name: TOOL_NAME,
    description: 'Write the complete new memory handbook as a list of entries.',
    input_schema: z.toJSONSchema(ModelOutputSchema, { target: 'draft-7' }) as Anthropic.Tool.InputSchema,
  };
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: data }];
  let calls = 0;
  for (let attempt = 1; attempt <= 2; attempt++) {
    calls++;
    const reply = await client.sdk.messages.create({
      model,
      max_tokens: options.maxTokens ?? 16_000,
      system: prompt.text,
      messages,
      tools: [tool],
      tool_choice: { type: 'tool', name: TOOL_NAME },
    });
    const use = reply.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use' && b.name === TOOL_NAME);
    const parsed = use ? ModelOutputSchema.safeParse(use.input) : undefined;
    if (parsed?.success) {
      return { entries: parsed.data.entries.map((e) => ({ ...e, text: redact(e.text) })), calls };
    }
    const cutShort = reply.stop_reason === 'max_tokens' ? ' Your answer was cut at max_tokens: merge more and keep entries shorter.' : '';
    const problem = (parsed ? `The input of ${TOOL_NAME} is invalid: ${describeIssues(parsed.error)}` : `You did not call ${TOOL_NAME}.`) + cutShort;
    log.warn({ attempt, problem }, 'phase 2 model output rejected');
    if (attempt === 2) {
      throw new MnemaraError('MODEL_OUTPUT_INVALID', `phase 2: the model's answer was invalid twice (${problem})`, {
        hint: 'The previous MEMORY.md is kept. Run `mnemara memory consolidate` again, or use the deterministic consolidation (memory.extractor: deterministic).',
      });
    }
    messages.push({ role: 'assistant', content: reply.content as Anthropic.ContentBlockParam[] });
    messages.push(
      use
        ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, is_error: true, content: `${problem}. Call ${TOOL_NAME} again with valid input.` }] }
        : { role: 'user', content: `${problem} Call ${TOOL_NAME} with the complete handbook.` },
    );
  }
  throw new Error('unreachable');
}
