import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { ModelClient } from '../agent/client.js';

/** What one structured call came to: the validated tool input, or the problem with the second answer. */
export type StructuredCallResult<T> = { ok: true; value: T; calls: number } | { ok: false; problem: string; calls: number };

/**
 * One structured model call, as both pipeline phases make it: the model must call the tool `toolName`, whose
 * input schema is derived from the zod `schema`; an answer that calls no tool or fails validation is sent back
 * once with the validation error (as an `is_error` tool result when a tool was called). Returns after at most
 * two calls; the caller decides what a second failure means. `onRejected` sees each rejected answer.
 * Throws only what the SDK throws (network, 4xx/5xx after its own retries).
 */
export async function structuredCall<S extends z.ZodType>(options: {
  client: ModelClient;
  model: string;
  /** The system prompt (from a versioned prompt file). */
  system: string;
  /** `max_tokens` of each call (tokens). */
  maxTokens: number;
  toolName: string;
  toolDescription: string;
  schema: S;
  /** The first user message (data fenced by the caller). */
  content: string;
  /** Said when the answer was cut at max_tokens. */
  shorter: string;
  /** Said when the model called no tool: what to call it with. */
  callWith: string;
  /** Receive each answer as a stream (SSE, `messages.stream`) instead of one JSON body; the result is the same. */
  stream?: boolean;
  onRejected?: (attempt: number, problem: string) => void;
}): Promise<StructuredCallResult<z.infer<S>>> {
  const { toolName } = options;
  const tool: Anthropic.Tool = {
    name: toolName,
    description: options.toolDescription,
    input_schema: z.toJSONSchema(options.schema, { target: 'draft-7' }) as Anthropic.Tool.InputSchema,
  };
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: options.content }];
  let problem = '';
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: options.model,
      max_tokens: options.maxTokens,
      system: options.system,
      messages,
      tools: [tool],
      tool_choice: { type: 'tool', name: toolName },
    };
    const reply = options.stream ? await options.client.sdk.messages.stream(params).finalMessage() : await options.client.sdk.messages.create(params);
    const use = reply.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use' && b.name === toolName);
    const parsed = use ? options.schema.safeParse(use.input) : undefined;
    if (parsed?.success) return { ok: true, value: parsed.data as z.infer<S>, calls: attempt };
    const cutShort = reply.stop_reason === 'max_tokens' ? ` Your answer was cut at max_tokens: ${options.shorter}` : '';
    problem = parsed
      ? `The input of ${toolName} is invalid: ${describeIssues(parsed.error)}.${cutShort}`
      : `You did not call ${toolName}.${cutShort}`;
    options.onRejected?.(attempt, problem);
    if (attempt === 2) break;
    messages.push({ role: 'assistant', content: reply.content as Anthropic.ContentBlockParam[] });
    messages.push(
      use
        ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, is_error: true, content: `${problem} Call ${toolName} again with valid input.` }] }
        : { role: 'user', content: `${problem} Call ${toolName} ${options.callWith}` },
    );
  }
  return { ok: false, problem, calls: 2 };
}

/** The first ten zod issues as `path: message`, for the model to correct. */
function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 10)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}
