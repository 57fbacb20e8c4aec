import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ModelClient } from '../agent/client.js';
import type { MnemaraConfig } from '../config/schema.js';
import type { OnProgress } from '../config/progress.js';
import { logger } from '../config/logger.js';
import { runMemoryPipeline, type MemoryPipelineResult } from '../memory/pipeline.js';
import type { AgentMemoryEdits } from '../memory/phase2/agent-proposals.js';
import { buildMemoryBlock } from '../memory/read.js';
import { blockCounter } from '../memory/token-count.js';
import type { Sandbox } from '../sandbox/types.js';

const log = logger('session');

/** The files the read path looks at, relative to the memories folder. */
const READ_FILES = ['memory_summary.md', 'MEMORY.md', '.state.json'];

/** Which pipeline path a session uses: `auto` = the model when a key or an endpoint is configured. */
export function extractorOf(config: MnemaraConfig): 'model' | 'deterministic' {
  if (config.memory.extractor !== 'auto') return config.memory.extractor;
  return config.anthropic.apiKey || config.anthropic.baseUrl || process.env.ANTHROPIC_AUTH_TOKEN ? 'model' : 'deterministic';
}

/**
 * Step 4: the memory block of the system prompt, built by the memory module's read path from the restored
 * workspace's `memory_summary.md` (and MEMORY.md + state for ranking), sized by `client`'s token count when given
 * (the endpoint's `count_tokens`, else the estimate). The few files are read from the sandbox
 * into a scratch directory. Never fails the session: no memory, or an unreadable one, gives no block.
 */
export async function readMemoryBlock(
  sandbox: Sandbox,
  config: MnemaraConfig,
  task: string,
  scratchDir: string,
  client?: ModelClient,
): Promise<{ block: string | undefined; note: string }> {
  const layout = config.memory.layout;
  const dir = await mkdtemp(join(scratchDir, 'read-'));
  try {
    // In parallel: each read is a round trip into the container (about 0.1 s).
    const files = await Promise.all(
      READ_FILES.map((name) =>
        sandbox.readFile(`${sandbox.workspaceDir}/${layout.memoriesDir}/${name}`, { maxBytes: 8 * 1024 * 1024 }).catch(() => null),
      ),
    );
    for (const [i, data] of files.entries()) {
      if (data === null) continue;
      const target = join(dir, layout.memoriesDir, READ_FILES[i] as string);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, data);
    }
    // Sized by the endpoint's own count when it has count_tokens (the estimate otherwise).
    const countBlock = client ? { countBlock: blockCounter(client, config.agent.model) } : {};
    const block = await buildMemoryBlock({ workspaceDir: dir, layout, budgetTokens: config.memory.readBudgetTokens, task, ...countBlock });
    if (!block.text) return { block: undefined, note: 'no memory yet' };
    const over = block.overBudget ? `; ${block.omitted.length} left out for the ${config.memory.readBudgetTokens}-token budget` : '';
    return { block: block.text, note: `${block.included.length} lessons in the prompt${over}` };
  } catch (err) {
    log.warn({ err }, 'could not build the memory block; the run starts without memory');
    return { block: undefined, note: `memory unreadable: ${(err as Error).message}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Steps 7 and 8 on a host directory holding the memory layout: phase 1 for every pending rollout, then phase 2.
 * `agentMemoryMd`: the run's own edits of MEMORY.md (and those of orphaned rollouts it adopted), each judged as
 * its rollout's proposals.
 * Returns the pipeline's result; a phase 1 or phase 2 failure is in the result (the rollout stays pending, the
 * previous MEMORY.md stays). When the model path fails because the endpoint does not give the structured answer
 * (it calls no tool or an invalid one, twice: a server that is not Claude), the deterministic extractor runs
 * instead on the same layout, and a `memory-fallback` progress event says so. `client` is needed only when
 * `extractorOf(config)` is `model`: callers without an agent run (recover) build none for the deterministic
 * extractor, which needs no key. Throws only when the pipeline cannot run at all (lock held, damaged state), or
 * when the model extractor is chosen and no client is given (a caller's mistake).
 */
export async function runPipelineOn(
  dir: string,
  config: MnemaraConfig,
  client: ModelClient | undefined,
  onProgress: OnProgress,
  agentMemoryMd?: AgentMemoryEdits | AgentMemoryEdits[],
): Promise<MemoryPipelineResult> {
  const extractor = extractorOf(config);
  if (extractor === 'model' && !client) throw new Error('runPipelineOn: the model extractor was chosen but no model client was given');
  const base = { workspaceDir: dir, layout: config.memory.layout, config: config.memory, onProgress, ...(agentMemoryMd ? { agentMemoryMd } : {}) };
  const result = await runMemoryPipeline({ ...base, extractor, ...(extractor === 'model' && client ? { client, model: config.memory.model ?? config.agent.model, contextTokens: config.memory.contextTokens } : {}) });
  const unstructured = extractor === 'model' ? structuredAnswerMissing(result) : undefined;
  if (!unstructured) return result;
  // One line says it (the progress event): the memory is written, this is no failure (twelfth trial F20).
  log.info({ problem: unstructured }, 'the endpoint gave no structured answer; the deterministic extractor writes the memory');
  onProgress({
    step: 'memory-fallback',
    phase: 'end',
    ok: true,
    message:
      `the model endpoint did not give the structured answer the memory step asks for (${unstructured.slice(0, 160)}); ` +
      'the deterministic extractor wrote this memory instead (memory.extractor=deterministic skips the model)',
  });
  const again = await runMemoryPipeline({ ...base, extractor: 'deterministic', forceConsolidation: true });
  return { ...again, modelCalls: again.modelCalls + result.modelCalls };
}

/** The problem when the model path failed for want of a structured answer (see `structuredCall`), else undefined. */
export function structuredAnswerMissing(r: MemoryPipelineResult): string | undefined {
  if (r.phase2Error?.code === 'MODEL_OUTPUT_INVALID') return r.phase2Error.message;
  return r.pending.find((p) => /was invalid twice/.test(p.error))?.error;
}
