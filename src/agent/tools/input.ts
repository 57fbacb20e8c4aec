import { z } from 'zod';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';

/** Validates a tool's input from the model; a mismatch becomes a `ToolError` naming the tool and the fields. */
export function parseInput<T extends z.ZodType>(schema: T, raw: unknown, tool: string): z.infer<T> {
  const r = schema.safeParse(raw);
  if (!r.success) throw new ToolError(`Invalid input for ${tool}:\n${z.prettifyError(r.error)}`);
  return r.data;
}
