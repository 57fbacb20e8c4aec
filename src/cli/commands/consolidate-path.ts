import type { ModelClient } from '../../agent/client.js';
import { MnemaraError } from '../../config/errors.js';
import type { OnProgress } from '../../config/progress.js';
import type { MnemaraConfig } from '../../config/schema.js';
import { runMemoryPipeline, type MemoryPipelineResult } from '../../memory/pipeline.js';
import { sessionModelClient } from '../../session/agent-step.js';
import { extractorOf, structuredAnswerMissing } from '../../session/memory-step.js';

/** Which path `memory consolidate` ran, and why it is not the model path when it is not. */
export interface ConsolidatePath {
  path: 'model' | 'deterministic';
  /** The model of the model path. */
  model?: string;
  /** Why the deterministic path ran: asked for (`--deterministic`), no model configured, or the endpoint failed it. */
  reason?: string;
  /** The deterministic path ran after the model path had been chosen (no credentials, or no structured answer). */
  fallback: boolean;
}

/**
 * `mnemara memory consolidate`'s pipeline: the model path when a model is configured (a key or an endpoint, or
 * `memory.extractor: model`), else the deterministic one. It falls back to the deterministic pipeline, and says
 * so, when the model path cannot run (no credentials for the endpoint: `INVALID_CONFIG` from the client) or
 * the endpoint gives no structured answer (a server that is not Claude); nothing is lost either way.
 * Other errors (lock held, damaged state) are thrown as `runMemoryPipeline` throws them.
 */
export async function consolidateWithFallback(
  workspaceDir: string,
  config: MnemaraConfig,
  opts: { deterministic?: boolean; model?: string; contextTokens: number; force: boolean; onProgress: OnProgress },
): Promise<{ result: MemoryPipelineResult } & ConsolidatePath> {
  const base = { workspaceDir, layout: config.memory.layout, config: config.memory, forceConsolidation: opts.force, onProgress: opts.onProgress };
  const deterministic = async (reason: string, fallback: boolean) => {
    const result = await runMemoryPipeline({ ...base, extractor: 'deterministic', ...(fallback ? { forceConsolidation: true } : {}) });
    return { result, path: 'deterministic' as const, reason, fallback };
  };
  if (opts.deterministic) return deterministic('--deterministic', false);
  if (extractorOf(config) === 'deterministic') {
    return deterministic(config.memory.extractor === 'deterministic' ? 'memory.extractor is deterministic' : 'no model configured (set ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL for the model path)', false);
  }
  let client: ModelClient;
  try {
    client = sessionModelClient(config);
  } catch (err) {
    if (!(err instanceof MnemaraError) || err.code !== 'INVALID_CONFIG') throw err;
    return deterministic(`no model configured: ${err.message}`, true);
  }
  const model = opts.model ?? config.memory.model ?? config.agent.model;
  const result = await runMemoryPipeline({ ...base, extractor: 'model', client, model, contextTokens: opts.contextTokens });
  const unstructured = structuredAnswerMissing(result);
  if (!unstructured) return { result, path: 'model', model, fallback: false };
  const again = await deterministic(`the endpoint gave no structured answer (${unstructured.slice(0, 160)})`, true);
  return { ...again, result: { ...again.result, modelCalls: again.result.modelCalls + result.modelCalls } };
}
