import { readFile, stat } from 'node:fs/promises';
import { redact } from '../../memory/redact.js';
import { z } from 'zod';
import { MnemaraError } from '../../config/errors.js';
import { TRANSCRIPT_FORMAT_VERSION, type Outcome, type TranscriptRecord } from '../schema.js';
import { splitMemoryBlock } from './memory-block.js';

/**
 * The Anthropic Messages form of a run (`test/fixtures/transcripts/README.md`): a JSON object with
 * `system` and `messages` as sent to the Messages API, plus optional `id`, `task`, `outcome`, `model`.
 * Validated loosely: unknown block types (thinking, images) are ignored, not refused.
 */
const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() });
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  is_error: z.boolean().optional(),
});
const AnyBlock = z.looseObject({ type: z.string() });
const MessageParam = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(AnyBlock)]),
});
export const AnthropicMessagesRunSchema = z.looseObject({
  format: z.string().optional(),
  id: z.string().optional(),
  task: z.string().optional(),
  model: z.string().optional(),
  /** `success` | `partial` | `fail`, and the spellings in `OUTCOME_WORDS` (case-insensitive). */
  outcome: z.string().optional(),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  messages: z.array(MessageParam).min(1),
});
export type AnthropicMessagesRun = z.infer<typeof AnthropicMessagesRunSchema>;

export interface ImportOptions {
  /** Rollout id to use; default: the file's `id` when it is a safe file name, else one made from the time. */
  rolloutId?: string;
  /**
   * ISO 8601 UTC start time stamped on the records (the format has none). Default: now for
   * `importAnthropicMessages`, the file's modification time for the file importers (so that importing
   * the same file twice gives the same records).
   */
  startedAt?: string;
  /** A block no rule maps (thinking, image, a tool block on the wrong side): kept as the record this returns. */
  onUnknown?: (sourceType: string, raw: unknown, message: number) => TranscriptRecord;
}

/**
 * The outcome values the form accepts (`test/fixtures/transcripts/README.md`: `success`, `partial`, `fail`),
 * with the spellings other tools write (`failed`, `completed`, `max_turns` …), case-insensitive. `partial`
 * says the task was left undone, not what ended the run: that is read from the transcript (`endOf`).
 */
export const OUTCOME_WORDS: Record<string, Outcome | 'partial'> = {
  success: 'completed', succeeded: 'completed', successful: 'completed', completed: 'completed', complete: 'completed', done: 'completed', ok: 'completed', passed: 'completed',
  partial: 'partial', incomplete: 'partial', unfinished: 'partial',
  fail: 'error', failed: 'error', failure: 'error', error: 'error', errored: 'error',
  max_turns: 'max_turns', turn_limit: 'max_turns', budget: 'budget', interrupted: 'interrupted', cancelled: 'interrupted', canceled: 'interrupted', aborted: 'interrupted', killed: 'interrupted',
};

/**
 * The outcome of a run and, when the stated value does not say it, what ended it: a `partial` run that ends
 * on the agent's own message was stopped by the agent (`error` + no error text: phase 1 tells "stopped on
 * purpose" from the transcript); one that ends on a tool call was cut off by something the format does not
 * name (`interrupted`, with an error text saying so), never "the turn limit" by assumption.
 * @throws MnemaraError `INVALID_INPUT` for a value not in `OUTCOME_WORDS`, naming the field and the values.
 */
function endOf(stated: string | undefined, endsOnAnswer: boolean): { outcome: Outcome; error?: string } {
  if (stated === undefined) return { outcome: endsOnAnswer ? 'completed' : 'interrupted' };
  const word = OUTCOME_WORDS[stated.trim().toLowerCase()];
  if (!word) {
    throw new MnemaraError('INVALID_INPUT', `not an Anthropic Messages transcript: outcome: ${JSON.stringify(stated)} is not an outcome`, {
      hint: `Set "outcome" to "success", "partial" or "fail" (also accepted: ${Object.keys(OUTCOME_WORDS).filter((k) => !['success', 'partial', 'fail'].includes(k)).join(', ')}), or leave it out.`,
    });
  }
  if (word !== 'partial') return { outcome: word };
  return endsOnAnswer ? { outcome: 'error' } : { outcome: 'interrupted', error: `the transcript ends on a tool call (outcome "${stated}"); it does not say whether a turn limit, a budget or a kill ended the run` };
}

/** The hint for a document that is not in the form: what the field that failed should hold. */
function hintFor(path: PropertyKey[]): string {
  const field = String(path[0] ?? '');
  if (field === 'messages') return '"messages" must be a non-empty array of {"role": "user" | "assistant", "content": a string or an array of blocks} (see docs/transcripts.md).';
  if (field === 'system') return '"system" must be a string or an array of {"type": "text", "text": …} blocks (see docs/transcripts.md).';
  if (field === '') return 'Expected a JSON object with a non-empty "messages" array (and optional "system", "id", "task", "outcome", "model"; see docs/transcripts.md).';
  return `"${field}" must be a string when present (see docs/transcripts.md).`;
}

const EXIT_CODE_TRAILER = /\n?\[exit code: (-?\d+)\]\s*$/;
/** The Messages form is one JSON document, read whole: refuse files over this many bytes. */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** An id that becomes a file name (`sessions/<id>.jsonl`) and a snapshot's rollout id: plain, and no secret in it. */
const usableId = (id: string): boolean => SAFE_ID.test(id) && redact(id) === id;

/**
 * Maps a run in the Anthropic Messages form onto transcript records (`schema.ts`), in order:
 * `session_meta` (system prompt without the "Memory from earlier runs" block, which goes to `memoryBlock`),
 * then per message its `text` blocks as `message` records and `tool_use` blocks as `tool_call`, the user's
 * `tool_result` blocks as `tool_result` (a trailing `[exit code: N]` of a command becomes `exitCode`), then
 * `session_end` (outcome `endOf`: success → completed, fail → error, partial → what the transcript shows ended
 * it; without one: `completed` when the run ends on an assistant message without tool calls, else `interrupted`). `turn` counts assistant messages.
 * Records are numbered by position when written out, so record i is line i+1.
 * @throws MnemaraError `INVALID_INPUT` when `json` is not in this form (the message says which field).
 */
export function importAnthropicMessages(json: unknown, options: ImportOptions = {}): TranscriptRecord[] {
  const parsed = AnthropicMessagesRunSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MnemaraError(
      'INVALID_INPUT',
      `not an Anthropic Messages transcript: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`,
      { hint: hintFor(issue?.path ?? []) },
    );
  }
  const run = parsed.data;
  const ts = options.startedAt ?? new Date().toISOString();
  const v = TRANSCRIPT_FORMAT_VERSION;
  const rolloutId = options.rolloutId ?? (run.id && usableId(run.id) ? run.id : `import-${ts.replace(/[^0-9]/g, '')}`);
  const systemText = typeof run.system === 'string' ? run.system : (run.system ?? []).map((b) => b.text ?? '').join('\n');
  const { system, memoryBlock } = splitMemoryBlock(systemText);

  const body: TranscriptRecord[] = [];
  const toolNames = new Map<string, string>();
  let turn = 0;
  let firstUserText: string | undefined;
  let endsOnAnswer = false;

  for (const [mi, msg] of run.messages.entries()) {
    const blocks = typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : msg.content;
    if (msg.role === 'assistant') turn += 1;
    let calls = 0;
    for (const raw of blocks) {
      const text = TextBlock.safeParse(raw);
      if (text.success) {
        if (text.data.text.trim() === '') continue;
        if (msg.role === 'user') firstUserText ??= text.data.text;
        body.push({ type: 'message', v, ts, turn, role: msg.role, text: text.data.text });
        continue;
      }
      const use = ToolUseBlock.safeParse(raw);
      if (use.success && msg.role === 'assistant') {
        calls += 1;
        toolNames.set(use.data.id, use.data.name);
        body.push({ type: 'tool_call', v, ts, turn, id: use.data.id, name: use.data.name, input: use.data.input ?? {} });
        continue;
      }
      const result = ToolResultBlock.safeParse(raw);
      if (result.success && msg.role === 'user') {
        body.push(toolResult(result.data, toolNames.get(result.data.tool_use_id), turn, ts));
        continue;
      }
      if (options.onUnknown) body.push(options.onUnknown(`block:${raw.type}`, raw, mi + 1));
    }
    endsOnAnswer = msg.role === 'assistant' && calls === 0;
  }

  const end = endOf(run.outcome, endsOnAnswer);
  return [
    {
      type: 'session_meta',
      v,
      ts,
      rolloutId,
      conversationId: rolloutId,
      task: run.task ?? firstUserText ?? '',
      model: run.model ?? 'unknown',
      ...(system ? { system } : {}),
      ...(memoryBlock ? { memoryBlock } : {}),
      source: 'anthropic-messages',
      versions: run.format ? { format: run.format } : {},
    },
    ...body,
    {
      type: 'session_end',
      v,
      ts,
      outcome: end.outcome,
      turns: turn,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      wallMs: 0,
      ...(end.error ? { error: end.error } : {}),
    },
  ];
}

function toolResult(
  block: z.infer<typeof ToolResultBlock>,
  name: string | undefined,
  turn: number,
  ts: string,
): TranscriptRecord {
  let output =
    typeof block.content === 'string'
      ? block.content
      : (block.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n');
  let exitCode: number | undefined;
  const trailer = EXIT_CODE_TRAILER.exec(output);
  if (trailer) {
    exitCode = Number(trailer[1]);
    output = output.slice(0, trailer.index);
  }
  return {
    type: 'tool_result',
    v: TRANSCRIPT_FORMAT_VERSION,
    ts,
    turn,
    id: block.tool_use_id,
    ...(name ? { name } : {}),
    output,
    isError: block.is_error ?? (exitCode !== undefined && exitCode !== 0),
    ...(exitCode !== undefined ? { exitCode } : {}),
  };
}

/**
 * Reads a file in the Anthropic Messages form and imports it (`importAnthropicMessages`).
 * @throws MnemaraError `NOT_FOUND` (no such file), `INVALID_INPUT` (not JSON, or not this form).
 */
export async function importAnthropicMessagesFile(path: string, options: ImportOptions = {}): Promise<TranscriptRecord[]> {
  let text: string;
  let startedAt = options.startedAt;
  try {
    const { size, mtime } = await stat(path);
    startedAt ??= mtime.toISOString();
    if (size > MAX_IMPORT_BYTES) {
      throw new MnemaraError('INVALID_INPUT', `${path} is ${size} bytes, over the ${MAX_IMPORT_BYTES}-byte import cap`, {
        hint: 'Split the run, or trim its largest tool outputs before importing.',
      });
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof MnemaraError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new MnemaraError('NOT_FOUND', `transcript ${path} does not exist`, { hint: 'Check the path.', cause: err });
    }
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new MnemaraError('INVALID_INPUT', `${path} is not valid JSON: ${(err as Error).message.slice(0, 160)}`, {
      hint: 'An Anthropic Messages transcript is one JSON object; JSONL transcripts are read with readTranscript.',
      cause: err,
    });
  }
  return importAnthropicMessages(json, { ...options, startedAt });
}
