import Anthropic from '@anthropic-ai/sdk';
import { redactedDeltas, type RedactedDeltas } from './text-deltas.js';
import { VERSION as SDK_VERSION } from '@anthropic-ai/sdk/version';
import type { BetaToolResultBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import { VERSION } from '../config/version.js';
import type { MemoryLayout } from '../config/memory.js';
import type { Sandbox } from '../sandbox/types.js';
import { DEFAULT_MODEL, type ModelClient } from './client.js';
import type { AgentEvent, OnAgentEvent } from './events.js';
import { newRolloutId } from './ids.js';
import { describeModelError } from './model-errors.js';
import { buildSystemPrompt } from './prompt.js';
import { createToolbox, type ToolLimits, type ToolStyle } from './tools/index.js';
import type { Outcome, Usage } from '../transcript/schema.js';
import { addUsage, outcomeOfStop, totalTokens, validateRun, ZERO_USAGE } from './limits.js';
import { recordReply, recordResults, withSecretPiecesRedacted } from './record.js';
import { redactSecretPieces, replacedSecrets, type ReplacedSecret } from '../memory/redact-split-secrets.js';
import { placeTranscript, TranscriptWriter, type Redact } from '../transcript/writer.js';

const log = logger('agent');

/** Options of {@link runAgent}. Token counts in tokens, times in ms. */
export interface RunAgentOptions {
  sandbox: Sandbox;
  client: ModelClient;
  /** Default {@link DEFAULT_MODEL}. */
  model?: string;
  /** The caller's system instructions (without memory). */
  instructions: string;
  /** The memory block for the system prompt (from the memory read path); fenced as data. */
  memoryBlock?: string;
  /** The user's task: the first user message. */
  task: string;
  /** Model turns (API calls) before the run stops as `max_turns`. */
  maxTurns: number;
  /** Token budget of the run: input + output + cache read + cache creation over all calls; over it → `budget`. */
  maxTokens: number;
  /** `max_tokens` of one model call; default 8192. */
  maxOutputTokens?: number;
  /** Offer the memory tool (`/memories` → `memoryLayout.memoriesDir` in the workspace). */
  liveUpdate: boolean;
  memoryLayout: MemoryLayout;
  /** Where the transcript is appended on the HOST as the run goes. */
  transcriptPath: string;
  /** Default a new {@link newRolloutId}. Must be a plain file-name-safe id. */
  rolloutId?: string;
  /** Several rollouts can form one conversation; default the rollout id. */
  conversationId?: string;
  /** Applied to every string before it reaches the transcript, and to streamed text before `model_text` events (the session passes the memory module's redaction). */
  redact?: Redact;
  /** Abort = interrupt: the running tool call finishes, the rest are not run, the run ends as `interrupted`. */
  signal?: AbortSignal;
  /** Abort with `signal` (or after it) = the running bash command is killed too, not waited for. */
  stopSignal?: AbortSignal;
  onEvent?: OnAgentEvent;
  toolLimits?: ToolLimits;
  /** Tool definitions: Anthropic's typed tools (default) or portable JSON-schema tools (`tools/portable.ts`). */
  toolStyle?: ToolStyle;
  /** Copy the transcript into the workspace at `<sessionsDir>/<rolloutId>.jsonl` at the end; default true. */
  placeInWorkspace?: boolean;
}

/** What a run did. `error` is set for outcome `error` (and says why a limit stopped a reply). */
export interface RunResult {
  outcome: Outcome;
  /** Model turns (API calls that returned a reply). */
  turns: number;
  usage: Usage;
  wallMs: number;
  rolloutId: string;
  conversationId: string;
  /** The host transcript (complete, whatever the outcome). */
  transcriptPath: string;
  /** The transcript's path inside the sandbox, when it was placed there. */
  workspaceTranscriptPath?: string;
  /** The last reply's stop reason (`end_turn`, `tool_use`, `max_tokens` …), if any reply came. */
  stopReason?: string | null;
  error?: { code: string; message: string; hint?: string };
}


/**
 * Runs one rollout: a Claude tool loop (the SDK's `toolRunner`, streaming, `thread: false` so that any
 * Anthropic-compatible endpoint works) with bash / text editor / memory tools executed in `sandbox`,
 * appending the transcript (`transcript/schema.ts`) on the host as it goes and placing it into the workspace
 * at the end. Stops on `end_turn` (`completed`), `maxTurns` (`max_turns`), `maxTokens` or a reply cut at
 * `max_tokens` (`budget`), `signal` (`interrupted`), or a model error after the SDK's retries (`error`).
 * Never throws for a model or tool failure; those are outcomes.
 * @throws MnemaraError `INVALID_INPUT` for a bad rollout/conversation id or limit; `TRANSCRIPT_WRITE` when
 *   the transcript cannot be opened (before any model call).
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const started = performance.now();
  const rolloutId = options.rolloutId ?? newRolloutId();
  const conversationId = options.conversationId ?? rolloutId;
  validateRun(options, rolloutId, conversationId);
  const model = options.model ?? DEFAULT_MODEL;
  const emit = safeEmitter(options.onEvent);
  const writer = await TranscriptWriter.open(options.transcriptPath, options.redact ? { redact: options.redact } : {});
  const clean = options.redact ?? ((s: string): string => s);

  let turns = 0;
  let usage = ZERO_USAGE;
  let outcome: Outcome | undefined;
  let stopReason: string | null | undefined;
  let error: MnemaraError | undefined;
  // Text of the reply in flight, so that an interrupt or error mid-stream keeps what the model had said.
  let streamed = '';
  let deltas: RedactedDeltas | undefined;

  try {
    await writer.append({
      type: 'session_meta',
      rolloutId,
      conversationId,
      task: options.task,
      model,
      system: options.instructions,
      ...(options.memoryBlock !== undefined ? { memoryBlock: options.memoryBlock } : {}),
      source: 'mnemara',
      versions: { mnemara: VERSION, '@anthropic-ai/sdk': SDK_VERSION, sandbox: options.sandbox.kind },
    });
    await writer.append({ type: 'message', turn: 0, role: 'user', text: options.task });

    // Secrets tool outputs showed whole, this run: their pieces are redacted from the commands (`withSecretPiecesRedacted`).
    const secrets: ReplacedSecret[] = [];
    const toolbox = createToolbox({
      sandbox: options.sandbox,
      liveUpdate: options.liveUpdate,
      memoryLayout: options.memoryLayout,
      ...(options.toolLimits ? { limits: options.toolLimits } : {}),
      ...(options.toolStyle ? { style: options.toolStyle } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
      // The one-line summaries quote commands (`echo $TOKEN=ghp_…`) and end up on terminals and in CI logs:
      // made from the redacted input (a secret split in the input is joined only while the input is whole).
      redact: clean,
      onStart: (c) => emit({ type: 'tool_call_started', turn: turns, ...c, summary: clean(c.summary) }),
      onEnd: ({ id, detail, summary }) => {
        // What the output showed whole goes from the command too, where it was printed in pieces (trial 26 N15).
        secrets.push(...replacedSecrets(detail.output, clean(detail.output)));
        emit({
          type: 'tool_call_ended',
          turn: turns,
          id,
          name: detail.name,
          summary: redactSecretPieces(clean(summary), secrets),
          isError: detail.isError,
          ...(detail.exitCode !== undefined ? { exitCode: detail.exitCode } : {}),
          ms: detail.durationMs,
        });
      },
    });

    const runner = options.client.sdk.beta.messages.toolRunner(
      {
        model,
        max_tokens: options.maxOutputTokens ?? 8192,
        system: buildSystemPrompt(options.instructions, options.memoryBlock),
        messages: [{ role: 'user', content: options.task }],
        tools: toolbox.tools,
        stream: true,
        thread: false,
        max_iterations: options.maxTurns,
      },
      options.signal ? { signal: options.signal } : {},
    );

    for await (const stream of runner) {
      const turn = turns + 1;
      const callStarted = performance.now();
      emit({ type: 'model_call_started', turn });
      streamed = '';
      // Deltas reach listeners redacted, whole lines at a time (a secret may be cut across deltas).
      deltas = redactedDeltas(clean, (delta) => emit({ type: 'model_text', turn, delta }));
      const onDelta = deltas;
      stream.on('text', (delta) => {
        streamed += delta;
        onDelta.push(delta);
      });
      const message = await stream.finalMessage();
      deltas.flush();
      streamed = '';
      turns = turn;
      usage = addUsage(usage, message);
      stopReason = message.stop_reason;
      emit({ type: 'model_call_ended', turn, stopReason, usage, ms: Math.round(performance.now() - callStarted) });

      // The calls are on disk before they run (a kill mid-command keeps them); rewritten when an output showed a
      // secret whose pieces a command holds.
      const mark = await writer.mark();
      await recordReply(writer, turn, message.content);
      const toolMessage = await runner.generateToolResponse();
      const results = toolMessage && Array.isArray(toolMessage.content) ? toolMessage.content : [];
      const content = withSecretPiecesRedacted(message.content, secrets);
      if (content !== message.content) {
        await writer.truncateTo(mark);
        await recordReply(writer, turn, content);
      }
      await recordResults(writer, turn, results as BetaToolResultBlockParam[], toolbox.details);

      if (toolbox.lost) {
        outcome = 'error';
        error = toolbox.lost;
        break;
      }
      if (options.signal?.aborted) {
        outcome = 'interrupted';
        break;
      }
      if (totalTokens(usage) > options.maxTokens) {
        outcome = 'budget';
        error = new MnemaraError('BUDGET', `The run used ${totalTokens(usage)} tokens, over its budget of ${options.maxTokens}`, {
          hint: 'Raise agent.maxTokens or narrow the task',
        });
        break;
      }
      if (results.length > 0 && turns >= options.maxTurns) {
        outcome = 'max_turns';
        break;
      }
    }
    // The runner's own max_iterations guard can end the loop on a turn that still wanted to go on.
    if (!outcome && turns >= options.maxTurns && (stopReason === 'tool_use' || stopReason === 'pause_turn')) outcome = 'max_turns';
    outcome ??= outcomeOfStop(stopReason, options.maxOutputTokens ?? 8192, (e) => (error = e));
  } catch (err) {
    deltas?.flush();
    if (streamed !== '') {
      await writer
        .append({ type: 'message', turn: turns + 1, role: 'assistant', text: streamed, partial: true })
        .catch((e: unknown) => log.error({ err: e }, 'could not record the partial reply'));
    }
    if (options.signal?.aborted || err instanceof Anthropic.APIUserAbortError) {
      outcome = 'interrupted';
    } else {
      outcome = 'error';
      error = describeModelError(err, options.client);
      log.warn({ err, rolloutId }, 'run ended with an error');
    }
  }

  const wallMs = Math.round(performance.now() - started);
  const result: RunResult = {
    outcome,
    turns,
    usage,
    wallMs,
    rolloutId,
    conversationId,
    transcriptPath: options.transcriptPath,
    ...(stopReason !== undefined ? { stopReason } : {}),
    ...(error ? { error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } } : {}),
  };
  try {
    await writer.append({ type: 'session_end', outcome, turns, usage, wallMs, ...(error ? { error: error.message } : {}) });
  } catch (err) {
    log.error({ err, rolloutId }, 'could not append session_end to the transcript');
  }
  await writer.close().catch((err: unknown) => log.error({ err }, 'could not close the transcript'));
  if (options.placeInWorkspace !== false) {
    try {
      result.workspaceTranscriptPath = await placeTranscript(
        options.sandbox,
        options.transcriptPath,
        options.memoryLayout.sessionsDir,
        rolloutId,
      );
    } catch (err) {
      // A warning, not an error: mnemara's bookkeeping comes from the host copy (publish puts it into the head's
      // `sessions/`), so nothing is lost; a workspace filled to its quota by the agent is the usual cause.
      log.warn({ err, rolloutId }, 'could not place the transcript into the workspace (full, or not writable); the host copy is the one kept, nothing is lost');
    }
  }
  emit({ type: 'run_ended', outcome, turns, usage, wallMs, ...(error ? { error: error.message } : {}) });
  return result;
}

function safeEmitter(onEvent: OnAgentEvent | undefined): (e: AgentEvent) => void {
  return (e) => {
    if (!onEvent) return;
    try {
      onEvent(e);
    } catch (err) {
      log.warn({ err, event: e.type }, 'an agent event listener threw; ignored');
    }
  };
}
