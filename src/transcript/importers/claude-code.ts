import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { MnemaraError } from '../../config/errors.js';
import { readRawLines } from '../lines.js';
import { TRANSCRIPT_FORMAT_VERSION, type SkippedLine, type TranscriptRecord } from '../schema.js';
import type { ImportOptions } from './anthropic-messages.js';
import { claudeCodeExitCode, mapClaudeCodeTool } from './claude-code-tools.js';

/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session-id>.jsonl`): one event a line,
 * `{type: 'user'|'assistant', message: <Messages API message>, sessionId, uuid, timestamp, isMeta?, isSidechain?}`;
 * other types (`summary`, `system`, snapshots) carry no conversation and are passed over.
 * One assistant message may be spread over several lines sharing `message.id`.
 */
const Block = z.looseObject({ type: z.string() });
const Line = z.looseObject({
  type: z.string(),
  sessionId: z.string().optional(),
  timestamp: z.string().optional(),
  isMeta: z.boolean().optional(),
  isSidechain: z.boolean().optional(),
  message: z
    .looseObject({
      id: z.string().optional(),
      role: z.string().optional(),
      model: z.string().optional(),
      content: z.union([z.string(), z.array(Block)]).optional(),
      usage: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).optional(),
    })
    .optional(),
});

/**
 * Maps parsed Claude Code event lines onto transcript records (`session_meta`, messages, tool calls and
 * results with Claude Code's tools mapped onto ours (`claude-code-tools.ts`), `session_end` with outcome `completed` when the session ends on an assistant answer, else
 * `interrupted`: the format records no outcome). Meta and sidechain (sub-agent) lines are left out.
 * Never throws on a malformed event; unusable events are reported in `skipped` (1-based `line`).
 */
export function importClaudeCode(
  events: Array<{ line: number; value: unknown }>,
  options: ImportOptions = {},
): { records: TranscriptRecord[]; skipped: SkippedLine[] } {
  const v = TRANSCRIPT_FORMAT_VERSION;
  const skipped: SkippedLine[] = [];
  const body: TranscriptRecord[] = [];
  const names = new Map<string, string>();
  const seenAssistant = new Set<string>();
  let turn = 0;
  let sessionId: string | undefined;
  let model = 'unknown';
  let task: string | undefined;
  let firstTs: string | undefined;
  let lastTs: string | undefined;
  let endsOnAnswer = false;
  let inputTokens = 0;
  let outputTokens = 0;

  for (const { line, value } of events) {
    const parsed = Line.safeParse(value);
    if (!parsed.success) {
      skipped.push({ line, reason: 'not a Claude Code event' });
      continue;
    }
    const ev = parsed.data;
    if ((ev.type !== 'user' && ev.type !== 'assistant') || ev.isMeta || ev.isSidechain || !ev.message) continue;
    sessionId ??= ev.sessionId;
    const ts = ev.timestamp ?? options.startedAt ?? new Date().toISOString();
    firstTs ??= ts;
    lastTs = ts;
    const content = ev.message.content ?? [];
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    if (ev.type === 'assistant') {
      const mid = ev.message.id ?? `line-${line}`;
      if (!seenAssistant.has(mid)) {
        seenAssistant.add(mid);
        turn += 1;
        inputTokens += ev.message.usage?.input_tokens ?? 0;
        outputTokens += ev.message.usage?.output_tokens ?? 0;
      }
      if (ev.message.model) model = ev.message.model;
    }
    let calls = 0;
    let texts = 0;
    for (const b of blocks as Array<Record<string, unknown>>) {
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
        const role = ev.type;
        if (role === 'user') task ??= b.text;
        texts += 1;
        body.push({ type: 'message', v, ts, turn, role, text: b.text });
      } else if (b.type === 'tool_use' && ev.type === 'assistant' && typeof b.id === 'string' && typeof b.name === 'string') {
        calls += 1;
        const tool = mapClaudeCodeTool(b.name, b.input ?? {});
        names.set(b.id, tool.name);
        body.push({ type: 'tool_call', v, ts, turn, id: b.id, name: tool.name, input: tool.input });
      } else if (b.type === 'tool_result' && ev.type === 'user' && typeof b.tool_use_id === 'string') {
        const c = b.content;
        const output =
          typeof c === 'string'
            ? c
            : Array.isArray(c)
              ? c.map((x: { type?: string; text?: string }) => (x.type === 'text' ? (x.text ?? '') : `[${x.type}]`)).join('\n')
              : '';
        const name = names.get(b.tool_use_id);
        const isError = b.is_error === true;
        const exitCode = name === 'bash' ? claudeCodeExitCode(output, isError) : undefined;
        body.push({
          type: 'tool_result',
          v,
          ts,
          turn,
          id: b.tool_use_id,
          ...(name ? { name } : {}),
          output,
          isError,
          ...(exitCode !== undefined ? { exitCode } : {}),
        });
      }
    }
    if (ev.type === 'assistant') endsOnAnswer = calls === 0 && texts > 0;
    else if (texts > 0 || calls > 0) endsOnAnswer = false;
  }

  const rolloutId = options.rolloutId ?? sessionId ?? `import-${Date.now()}`;
  const start = firstTs ?? options.startedAt ?? new Date().toISOString();
  const endTs = lastTs ?? start;
  return {
    skipped,
    records: [
      { type: 'session_meta', v, ts: start, rolloutId, conversationId: sessionId ?? rolloutId, task: task ?? '', model, source: 'claude-code', versions: {} },
      ...body,
      {
        type: 'session_end',
        v,
        ts: endTs,
        outcome: endsOnAnswer ? 'completed' : 'interrupted',
        turns: turn,
        usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheCreationTokens: 0 },
        wallMs: Math.max(0, Date.parse(endTs) - Date.parse(start)) || 0,
      },
    ],
  };
}

/**
 * Streams a Claude Code session file and imports it (`importClaudeCode`); damaged lines are skipped and
 * reported, as in `readTranscript`.
 * @throws MnemaraError `NOT_FOUND` when the file does not exist.
 */
export async function importClaudeCodeFile(
  path: string,
  options: ImportOptions = {},
): Promise<{ records: TranscriptRecord[]; skipped: SkippedLine[] }> {
  let fallbackStart: string;
  try {
    fallbackStart = (await stat(path)).mtime.toISOString();
  } catch (err) {
    throw new MnemaraError('NOT_FOUND', `transcript ${path} does not exist`, { hint: 'Check the path.', cause: err });
  }
  const events: Array<{ line: number; value: unknown }> = [];
  const skipped: SkippedLine[] = [];
  for await (const raw of readRawLines(path)) {
    if ('oversizedBytes' in raw) {
      skipped.push({ line: raw.line, reason: `line of ${raw.oversizedBytes} bytes is over the cap` });
      continue;
    }
    const text = raw.bytes.toString('utf8');
    if (text.trim() === '') continue;
    try {
      events.push({ line: raw.line, value: JSON.parse(text) });
    } catch {
      skipped.push({ line: raw.line, reason: raw.lastWithoutNewline ? 'truncated last line' : 'invalid JSON' });
    }
  }
  // Events carry their own times; the file's time stands in only where they do not (stable re-imports).
  const out = importClaudeCode(events, { ...options, startedAt: options.startedAt ?? fallbackStart });
  return { records: out.records, skipped: [...skipped, ...out.skipped].sort((a, b) => a.line - b.line) };
}
