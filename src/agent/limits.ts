import type { BetaMessage } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { MnemaraError } from '../config/errors.js';
import { isSafeId } from './ids.js';
import type { Outcome, Usage } from '../transcript/schema.js';

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };

/** `a` plus one reply's usage (tokens). */
export function addUsage(a: Usage, m: BetaMessage): Usage {
  return {
    inputTokens: a.inputTokens + (m.usage.input_tokens ?? 0),
    outputTokens: a.outputTokens + (m.usage.output_tokens ?? 0),
    cacheReadTokens: a.cacheReadTokens + (m.usage.cache_read_input_tokens ?? 0),
    cacheCreationTokens: a.cacheCreationTokens + (m.usage.cache_creation_input_tokens ?? 0),
  };
}

/** What counts against the run's token budget: every token processed, cached or not. */
export const totalTokens = (u: Usage): number => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheCreationTokens;

/** Checks ids and limits before a run starts. @throws MnemaraError `INVALID_INPUT` naming the option. */
export function validateRun(o: { maxTurns: number; maxTokens: number }, rolloutId: string, conversationId: string): void {
  for (const [name, id] of [
    ['rolloutId', rolloutId],
    ['conversationId', conversationId],
  ] as const) {
    if (!isSafeId(id)) {
      throw new MnemaraError('INVALID_INPUT', `${name} ${JSON.stringify(id)} is not a plain id`, {
        hint: 'Use letters, digits, ".", "_" and "-" only (1–128 characters), or leave it out for a new one',
      });
    }
  }
  for (const [name, v] of [
    ['maxTurns', o.maxTurns],
    ['maxTokens', o.maxTokens],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) {
      throw new MnemaraError('INVALID_INPUT', `${name} must be a positive integer, got ${String(v)}`);
    }
  }
}

/** The outcome of a run the runner ended by itself, from the last stop reason; reports cut-offs and refusals. */
export function outcomeOfStop(stop: string | null | undefined, maxOutputTokens: number, setError: (e: MnemaraError) => void): Outcome {
  if (stop === 'max_tokens' || stop === 'model_context_window_exceeded') {
    setError(
      new MnemaraError('BUDGET', `The model's reply was cut off (${stop}; max_tokens per call is ${maxOutputTokens})`, {
        hint: 'Raise agent.maxOutputTokens, or split the task',
      }),
    );
    return 'budget';
  }
  if (stop === 'refusal') {
    setError(new MnemaraError('MODEL_REFUSAL', 'The model declined to continue (stop_reason refusal)'));
    return 'error';
  }
  return 'completed';
}
