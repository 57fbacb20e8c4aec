import { createModelClient, runAgent, toolStyleFor, type AgentEvent, type ModelClient } from '../agent/index.js';
import type { Outcome, Usage } from '../transcript/schema.js';
import type { MnemaraConfig } from '../config/schema.js';
import { rememberingRedact } from '../memory/redact-parts.js';
import type { Sandbox } from '../sandbox/types.js';
import type { SessionEvent, SessionOptions } from './types.js';

/**
 * The session's standing instructions (before the memory block). Short on purpose: the task says what to do;
 * this says where the agent is and what its tools touch.
 */
export const SESSION_INSTRUCTIONS = [
  'You are a coding agent working in a sandboxed copy of a repository at /workspace (your shell starts there).',
  'Use the bash tool to run commands and the text editor tool to read and change files.',
  'Work until the task is done and verified (run the tests when there are any), then reply with a short summary of what you changed and how you checked it.',
  'Your work is saved as a snapshot when you finish; you do not need to commit it.',
].join('\n');

/**
 * The model client of a session, built before anything starts so that a missing key fails fast.
 * @throws MnemaraError `INVALID_CONFIG` (no key for a remote endpoint, a bad base URL).
 */
export function sessionModelClient(config: MnemaraConfig): ModelClient {
  return createModelClient({
    ...(config.anthropic.apiKey ? { apiKey: config.anthropic.apiKey } : {}),
    ...(config.anthropic.baseUrl ? { baseURL: config.anthropic.baseUrl } : {}),
    timeoutMs: config.anthropic.requestTimeoutMs,
  });
}

/** What the session keeps of the agent run. Times in ms, usage in tokens. */
export interface AgentRunSummary {
  outcome: Outcome;
  turns: number;
  usage: Usage;
  wallMs: number;
  error?: string;
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };

/** Agent events as session events: turn ends and tool calls (text deltas are left out). */
function forward(emit: (e: SessionEvent) => void): (e: AgentEvent) => void {
  let answering = -1;
  return (e) => {
    if (e.type === 'model_call_started') emit({ type: 'model', turn: e.turn, phase: 'waiting' });
    else if (e.type === 'model_text' && answering !== e.turn) {
      answering = e.turn;
      emit({ type: 'model', turn: e.turn, phase: 'answering' });
    } else if (e.type === 'model_call_ended') emit({ type: 'turn', turn: e.turn, usage: e.usage });
    else if (e.type === 'tool_call_started') {
      emit({ type: 'tool', tool: { turn: e.turn, id: e.id, name: e.name, summary: e.summary, phase: 'start' } });
    } else if (e.type === 'tool_call_ended') {
      emit({
        type: 'tool',
        tool: {
          turn: e.turn,
          id: e.id,
          name: e.name,
          summary: e.summary,
          phase: 'end',
          isError: e.isError,
          durationMs: e.ms,
          ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}),
        },
      });
    }
  };
}

/**
 * Step 5: the agent run (`runAgent`), with the transcript appended on the host at `transcriptPath` (redacted as
 * written) and placed into the workspace at the end. Every failure becomes outcome `error`, so that the session
 * still snapshots the workspace.
 */
export async function runAgentStep(args: {
  sandbox: Sandbox;
  client: ModelClient;
  config: MnemaraConfig;
  task: string;
  memoryBlock: string | undefined;
  rolloutId: string;
  transcriptPath: string;
  emit: (e: SessionEvent) => void;
  options: SessionOptions;
}): Promise<AgentRunSummary> {
  const { config, options } = args;
  const started = Date.now();
  try {
    const run = await runAgent({
      sandbox: args.sandbox,
      client: args.client,
      model: config.agent.model,
      instructions: options.instructions ? `${SESSION_INSTRUCTIONS}\n\n${options.instructions}` : SESSION_INSTRUCTIONS,
      ...(args.memoryBlock !== undefined ? { memoryBlock: args.memoryBlock } : {}),
      task: args.task,
      maxTurns: config.agent.maxTurns,
      maxTokens: config.agent.maxTokens,
      maxOutputTokens: config.agent.maxOutputTokens,
      liveUpdate: config.agent.liveUpdate,
      toolStyle: toolStyleFor(config.agent.tools, config.anthropic.baseUrl),
      memoryLayout: config.memory.layout,
      transcriptPath: args.transcriptPath,
      rolloutId: args.rolloutId,
      ...(options.conversationId ? { conversationId: options.conversationId } : {}),
      // One per transcript: a secret seen once (`export X_PASS=…`) is also caught where it appears bare later (`echo $X_PASS`).
      redact: rememberingRedact(),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
      onEvent: forward(args.emit),
    });
    return {
      outcome: run.outcome,
      turns: run.turns,
      usage: run.usage,
      wallMs: run.wallMs,
      ...(run.error ? { error: run.error.hint ? `${run.error.message} (${run.error.hint})` : run.error.message } : {}),
    };
  } catch (err) {
    return { outcome: 'error', turns: 0, usage: ZERO, wallMs: Date.now() - started, error: (err as Error).message };
  }
}
