import { z } from 'zod';

/**
 * The transcript `sessions/<rollout-id>.jsonl` (DESIGN.md, "Transcript"): one JSON object a line,
 * `session_meta` first, then `message`, `tool_call` and `tool_result` lines in order, then `session_end`.
 * Every line carries `type`, `v` (format version) and `ts` (ISO 8601 UTC).
 * Importers (`importers/`) map foreign formats onto the same records.
 */
export const TRANSCRIPT_FORMAT_VERSION = 1;

/** How a run ended. `max_turns`/`budget` = stopped by a limit; `interrupted` = Ctrl-C; `error` = model or mnemara failure. */
export const OutcomeSchema = z.enum(['completed', 'max_turns', 'budget', 'interrupted', 'error']);
export type Outcome = z.infer<typeof OutcomeSchema>;

/** Token counts of a run, summed over its model calls (tokens). */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheCreationTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

const base = { v: z.literal(TRANSCRIPT_FORMAT_VERSION), ts: z.string() };

/** Where a transcript came from: mnemara's own loop, or the importer of another agent's format. */
export const SOURCES = [
  'mnemara',
  'anthropic-messages',
  'claude-code',
  'codex',
  'swe-agent',
  'mini-swe-agent',
  'openhands',
  'aider',
  'agents-sdk',
  'gemini-cli',
] as const;
export type TranscriptSource = (typeof SOURCES)[number];

export const SessionMetaSchema = z.object({
  type: z.literal('session_meta'),
  ...base,
  rolloutId: z.string().min(1),
  /** Several runs (rollouts) can form one conversation. */
  conversationId: z.string().min(1),
  task: z.string(),
  model: z.string(),
  /** The caller's instructions (without the memory block). Phase 1 drops it. */
  system: z.string().optional(),
  /** The memory block injected into the system prompt. Phase 1 drops it: it is what the run started with. */
  memoryBlock: z.string().optional(),
  /** Where the transcript came from: mnemara's own loop, or an importer. */
  source: z.enum(SOURCES).default('mnemara'),
  versions: z.record(z.string(), z.string()).default({}),
});

/** A text message. `role: 'user'` holds the task and anything a person typed mid-run. */
export const MessageSchema = z.object({
  type: z.literal('message'),
  ...base,
  turn: z.number().int().nonnegative(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  /** The reply was cut off (interrupt or error mid-stream): `text` is what had streamed so far. */
  partial: z.boolean().optional(),
});

export const ToolCallSchema = z.object({
  type: z.literal('tool_call'),
  ...base,
  turn: z.number().int().nonnegative(),
  /** The model's `tool_use` id; the matching `tool_result` carries the same. */
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});

export const ToolResultSchema = z.object({
  type: z.literal('tool_result'),
  ...base,
  turn: z.number().int().nonnegative(),
  id: z.string(),
  name: z.string().optional(),
  /** What the model was shown (already capped by the sandbox). */
  output: z.string(),
  isError: z.boolean(),
  /** Commands only: the exit code (`null` when unknown) and wall time in ms. */
  exitCode: z.number().int().nullable().optional(),
  durationMs: z.number().nonnegative().optional(),
  timedOut: z.boolean().optional(),
  truncated: z.boolean().optional(),
});

export const SessionEndSchema = z.object({
  type: z.literal('session_end'),
  ...base,
  outcome: OutcomeSchema,
  turns: z.number().int().nonnegative(),
  usage: UsageSchema,
  wallMs: z.number().nonnegative(),
  error: z.string().optional(),
});

/**
 * A source record mnemara does not map (a type or block its importer does not know, or one it knows carries
 * no conversation, such as Codex's token counts): kept verbatim so nothing is lost. Phase 1 ignores it.
 * `sourceType` names it in the source's terms (`compaction`, `event_msg/token_count`, `block:thinking`).
 */
export const UnknownRecordSchema = z.object({
  type: z.literal('unknown'),
  ...base,
  sourceType: z.string(),
  /** 1-based line (or item index) in the source file. */
  sourceLine: z.number().int().nonnegative().optional(),
  /** The source record or block, as parsed. */
  raw: z.unknown(),
});

/**
 * A stub for source bytes that could not be read as a record (cut line, invalid JSON, a line over the size
 * cap, a NUL run): its size and why, plus the start of the text when it is small enough to keep.
 */
export const DamagedRecordSchema = z.object({
  type: z.literal('damaged'),
  ...base,
  sourceLine: z.number().int().nonnegative().optional(),
  /** Size of the damaged bytes. */
  bytes: z.number().int().nonnegative(),
  reason: z.string(),
  /** The first bytes of the damage as text (at most 4 KiB), absent for huge or binary damage. */
  fragment: z.string().optional(),
});

export const TranscriptRecordSchema = z.discriminatedUnion('type', [
  SessionMetaSchema,
  MessageSchema,
  ToolCallSchema,
  ToolResultSchema,
  SessionEndSchema,
  UnknownRecordSchema,
  DamagedRecordSchema,
]);

export type SessionMeta = z.infer<typeof SessionMetaSchema>;
export type MessageRecord = z.infer<typeof MessageSchema>;
export type ToolCallRecord = z.infer<typeof ToolCallSchema>;
export type ToolResultRecord = z.infer<typeof ToolResultSchema>;
export type SessionEnd = z.infer<typeof SessionEndSchema>;
export type UnknownRecord = z.infer<typeof UnknownRecordSchema>;
export type DamagedRecord = z.infer<typeof DamagedRecordSchema>;
export type TranscriptRecord = z.infer<typeof TranscriptRecordSchema>;

/** A record with the 1-based line it came from (evidence in raw memories points at these lines). */
export interface NumberedRecord {
  line: number;
  record: TranscriptRecord;
}

/** A line the reader could not use, and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}
