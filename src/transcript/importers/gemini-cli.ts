import { stat } from 'node:fs/promises';
import { MnemaraError } from '../../config/errors.js';
import type { Damage } from '../decode.js';
import { EDITOR } from './edits.js';
import { documentOrLines, MAX_DOCUMENT_BYTES } from './source.js';
import { isoTime, num, obj, str, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * Gemini CLI saved chats (`~/.gemini/tmp/<projectHash>/chats/session-<date>-<id>.json`). Format from gemini-cli
 * `packages/core/src/services/chatRecordingService.ts` and `chatRecordingTypes.ts`: a `ConversationRecord`
 * `{sessionId, projectHash, startTime, lastUpdated, messages, summary?, directories?, kind?}` whose messages are
 * `{id, timestamp, type: 'user'|'gemini'|'info'|'error'|'warning', content (a string or Gemini parts),
 * toolCalls?: [{id, name, args, result (parts), status, timestamp, resultDisplay?, displayName?}], thoughts?,
 * tokens?: {input, output, cached, thoughts?, tool?, total}, model?}`. Newer releases append the same records to a
 * `.jsonl` file instead: a metadata line, message records (a message is written again, whole, each time it
 * changes: the last one wins), `{$set: {...}}` metadata patches (`messages` replaces the list) and
 * `{$rewindTo: id}` (drops that message and those after it); both forms are read, the JSONL folded first.
 * Tools: `run_shell_command` (`args.command`; the result text has `Exit Code:` and `Error:` lines) → `bash` with
 * the exit code; `replace`/`edit`/`write_file` → the editor; others (`read_file`, `glob`, `google_web_search` …)
 * are tool calls under their own names. Tool status `error`/`cancelled` and `error` messages are failures.
 */
const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

/** The metadata of a chat: `sessionId` and `projectHash` as strings, and no `type` (a Claude Code line has one). */
function isHeader(v: unknown): boolean {
  const o = obj(v);
  return !!o && typeof o.sessionId === 'string' && typeof o.projectHash === 'string' && !('type' in o) && !('uuid' in o);
}

function isMessage(v: unknown): boolean {
  const o = obj(v);
  // `content` is left out of some records newer releases write (a gemini message holding only tokens or tool calls).
  return !!o && typeof o.id === 'string' && MESSAGE_TYPES.has(str(o.type) ?? '');
}

function detect(probe: Probe): boolean {
  if (probe.kind === 'json') return isHeader(probe.doc) && Array.isArray(obj(probe.doc)!.messages);
  if (probe.kind !== 'jsonl') return false;
  const [head, ...rest] = probe.values;
  return isHeader(head) && rest.every((v) => isMessage(v) || typeof obj(v)?.$rewindTo === 'string' || obj(obj(v)?.$set) !== undefined);
}

/** Why a document that looks like a saved chat is not taken (for the refusal); undefined when it does not look like one. */
export function geminiNearMiss(probe: Probe): string | undefined {
  const doc = probe.kind === 'json' ? obj(probe.doc) : probe.kind === 'jsonl' ? obj(probe.values[0]) : undefined;
  if (!doc || typeof doc.sessionId !== 'string' || !('projectHash' in doc || 'startTime' in doc) || 'type' in doc) return undefined;
  if (probe.kind === 'json' && !Array.isArray(doc.messages)) return `it has a Gemini CLI chat's sessionId but its "messages" is ${doc.messages === undefined ? 'missing' : `not a list (${typeof doc.messages})`}; pass the session-*.json file from ~/.gemini/tmp/<projectHash>/chats/ as Gemini CLI wrote it`;
  if (typeof doc.projectHash !== 'string') return 'it has a Gemini CLI chat\'s sessionId but no "projectHash"; pass the session file from ~/.gemini/tmp/<projectHash>/chats/ as Gemini CLI wrote it';
  if (probe.kind === 'jsonl') {
    const bad = probe.values.findIndex((v, i) => i > 0 && !isMessage(v) && typeof obj(v)?.$rewindTo !== 'string' && obj(obj(v)?.$set) === undefined);
    if (bad > 0) return `its first line is a Gemini CLI chat's metadata, but line ${bad + 1} is not a message record (keys: ${Object.keys(obj(probe.values[bad]) ?? {}).slice(0, 8).join(', ') || typeof probe.values[bad]}); remove what else was written into the file`;
  }
  return undefined;
}

type State = { turn: number; agentSide: boolean; last: string };

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const { meta, messages, extra } = (await documentOrLines(src)) === 'document' ? await fromDocument(src) : await fromLines(src);
  ctx.meta.id = str(meta.sessionId);
  ctx.meta.startedAt = isoTime(meta.startTime);
  ctx.meta.endedAt = isoTime(meta.lastUpdated);
  if (typeof meta.projectHash === 'string') ctx.meta.versions.projectHash = meta.projectHash;
  const records = messages.filter((m): m is { line: number; value: unknown } => 'value' in m);
  const shaped = records.filter((m) => isMessage(m.value)).length;
  if (records.length > 0 && shaped * 2 < records.length) {
    const bad = records.find((m) => !isMessage(m.value))!;
    throw new MnemaraError('INVALID_INPUT', `${src.path} looks like a Gemini CLI chat (sessionId ${JSON.stringify(meta.sessionId)}) but ${records.length - shaped} of its ${records.length} messages are not message records (message ${bad.line}: keys ${Object.keys(obj(bad.value) ?? {}).slice(0, 8).join(', ') || typeof bad.value})`, {
      hint: 'A Gemini CLI message has an id, a timestamp, a type (user, gemini, info, error, warning) and content. Pass the session file from ~/.gemini/tmp/<projectHash>/chats/ as Gemini CLI wrote it.',
    });
  }
  const state: State = { turn: 0, agentSide: false, last: '' };
  for (const m of messages) {
    if ('damage' in m) yield ctx.damaged(m.damage);
    else yield* message(m.value, m.line, ctx, state);
  }
  for (const [k, v] of extra) yield ctx.verbatim(k, v);
  if (state.last === 'error') ctx.meta.outcome = 'error';
  else if (state.last === 'cancelled') ctx.meta.outcome = 'interrupted';
}

type Folded = { meta: Record<string, unknown>; messages: Array<{ line: number; value: unknown } | { line: number; damage: Damage }>; extra: Array<[string, unknown]> };
const META_KEYS = ['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'messages'];

async function fromDocument(src: ImportSource): Promise<Folded> {
  const doc = obj(await src.document()) ?? {};
  const list = Array.isArray(doc.messages) ? doc.messages : [];
  return { meta: doc, messages: list.map((value, i) => ({ line: i + 1, value })), extra: Object.entries(doc).filter(([k]) => !META_KEYS.includes(k)).map(([k, v]) => [`key:${k}`, v]) };
}

/** The JSONL form folded as Gemini CLI replays it: messages by id (the last write wins, in first-write order). */
async function fromLines(src: ImportSource): Promise<Folded> {
  const size = (await stat(src.path)).size;
  if (size > MAX_DOCUMENT_BYTES) {
    throw new MnemaraError('INVALID_INPUT', `${src.path} is a ${size}-byte Gemini CLI chat, over the ${MAX_DOCUMENT_BYTES}-byte cap (its records rewrite earlier ones, so it is read whole)`, {
      hint: 'Split the session, or learn the part you need: the chats Gemini CLI writes are far smaller than this.',
    });
  }
  let meta: Record<string, unknown> = {};
  let order: Entry[] = [];
  const extra: Array<[string, unknown]> = [];
  let n = 0;
  for await (const d of src.lines()) {
    if ('damage' in d) {
      order.push({ key: `damage:${(n += 1)}`, line: d.line, damage: d.damage });
      continue;
    }
    const o = obj(d.value);
    if (o && typeof o.$rewindTo === 'string') {
      // As Gemini CLI replays it: the target and what follows go (all of it when the target is unknown).
      const at = order.findIndex((e) => e.key === o.$rewindTo);
      order = drop(order, at < 0 ? 0 : at, 'rewound message', extra);
    } else if (o && typeof o.id === 'string' && 'type' in o) {
      const i = order.findIndex((e) => e.key === o.id);
      if (i >= 0) order[i] = { key: o.id, line: d.line, value: o };
      else order.push({ key: o.id, line: d.line, value: o });
    } else if (o && (isHeader(o) || obj(o.$set))) {
      const patch = obj(o.$set) ?? o;
      meta = { ...meta, ...patch };
      if (Array.isArray(patch.messages)) order = [...drop(order, 0, 'replaced message', extra), ...patch.messages.map((m, i) => ({ key: str(obj(m)?.id) ?? `set:${i}`, line: d.line, value: m as unknown }))];
      for (const [k, v] of Object.entries(patch)) if (!META_KEYS.includes(k)) extra.push([`key:${k}`, v]);
    } else order.push({ key: `line:${d.line}`, line: d.line, value: d.value });
  }
  return { meta, messages: order.map((e) => (e.damage ? { line: e.line, damage: e.damage } : { line: e.line, value: e.value })), extra };
}

type Entry = { key: string; line: number; value?: unknown; damage?: Damage };
/** Entries from `from` on taken out of the chat: their messages kept verbatim as `why`, damage stubs left in place. */
function drop(order: Entry[], from: number, why: string, extra: Array<[string, unknown]>): Entry[] {
  for (const e of order.slice(from)) if (e.value !== undefined) extra.push([why, e.value]);
  return [...order.slice(0, from), ...order.slice(from).filter((e) => e.damage)];
}

/** Text of Gemini content: a string, a part `{text}`, or a list of them (thought parts left out); '' when absent. */
function partsText(v: unknown): string {
  if (typeof v === 'string') return v;
  const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return list
    .map((p) => (typeof p === 'string' ? p : obj(p)?.thought === true ? '' : str(obj(p)?.text) ?? ''))
    .filter(Boolean)
    .join('\n');
}

function* message(raw: unknown, n: number, ctx: ImportContext, state: State): Generator<Draft> {
  const m = obj(raw);
  if (!m || !isMessage(m)) {
    yield ctx.unknown('non-message', raw, n);
    return;
  }
  const ts = isoTime(m.timestamp);
  const at = ts ? { ts } : {};
  const type = str(m.type)!;
  const agentTurn = (): number => {
    if (!state.agentSide) {
      state.turn += 1;
      state.agentSide = true;
    }
    return state.turn;
  };
  if (type === 'user') {
    state.agentSide = false;
    state.last = 'user';
    yield { type: 'message', ...at, turn: state.turn, role: 'user', text: partsText(m.content) };
    return;
  }
  if (type !== 'gemini') {
    if (type === 'error') {
      ctx.meta.error = partsText(m.content);
      state.last = 'error';
    }
    yield ctx.verbatim(`message:${type}`, m, n, ts);
    return;
  }
  if (typeof m.model === 'string') ctx.meta.model = m.model;
  const tokens = obj(m.tokens);
  if (tokens) {
    const cached = num(tokens.cached) ?? 0;
    const u = ctx.meta.usage;
    u.inputTokens += Math.max(0, (num(tokens.input) ?? 0) - cached);
    u.cacheReadTokens += cached;
    u.outputTokens += (num(tokens.output) ?? 0) + (num(tokens.thoughts) ?? 0);
  }
  if (Array.isArray(m.thoughts) && m.thoughts.length > 0) yield ctx.verbatim('thoughts', m.thoughts, n, ts);
  const text = partsText(m.content);
  if (text) {
    state.last = 'gemini';
    yield { type: 'message', ...at, turn: agentTurn(), role: 'assistant', text };
  }
  for (const [i, c] of (Array.isArray(m.toolCalls) ? m.toolCalls : []).entries()) yield* toolCall(c, `${str(m.id)}-${i}`, n, ts, agentTurn, ctx, state);
}

function* toolCall(raw: unknown, fallbackId: string, n: number, msgTs: string | undefined, agentTurn: () => number, ctx: ImportContext, state: State): Generator<Draft> {
  const c = obj(raw);
  if (!c || typeof c.name !== 'string') {
    yield ctx.unknown('toolCall', raw, n, msgTs);
    return;
  }
  const ts = isoTime(c.timestamp) ?? msgTs;
  const at = ts ? { ts } : {};
  const id = str(c.id) ?? fallbackId;
  const tool = mapTool(c.name, obj(c.args) ?? {});
  yield { type: 'tool_call', ...at, turn: agentTurn(), id, name: tool.name, input: tool.input };
  const status = str(c.status) ?? '';
  const { output, exitCode, error } = resultOf(c, tool.name === 'bash');
  const failed = status === 'error' || status === 'cancelled' || error || (exitCode !== undefined && exitCode !== 0);
  state.last = status === 'cancelled' ? 'cancelled' : 'tool';
  if (c.result === undefined && c.resultDisplay === undefined && !['error', 'cancelled', 'success'].includes(status)) return;
  yield { type: 'tool_result', ...at, turn: state.turn, id, name: tool.name, output: status === 'cancelled' && !output ? '[cancelled]' : output, isError: Boolean(failed), ...(exitCode !== undefined ? { exitCode } : {}) };
}

/** Gemini CLI's own tools onto mnemara's `bash` and editor, so phase 1 reads commands and edits like its own. */
function mapTool(name: string, a: Record<string, unknown>): { name: string; input: unknown } {
  const path = str(a.file_path) ?? str(a.absolute_path) ?? str(a.path) ?? '';
  if (name === 'run_shell_command') return { name: 'bash', input: { command: str(a.command) ?? '', ...(typeof a.directory === 'string' ? { workdir: a.directory } : {}) } };
  if (name === 'replace' || name === 'edit') return { name: EDITOR, input: { command: 'str_replace', path, old_str: a.old_string, new_str: a.new_string } };
  if (name === 'write_file') return { name: EDITOR, input: { command: 'create', path, file_text: a.content } };
  return { name, input: a };
}

/**
 * A tool call's result: its parts (`[{functionResponse: {response: {output} | {error}}}]`, or text parts), else the
 * `resultDisplay` text. A shell result's `Exit Code: N` line gives the exit code; an `Error:` line other than
 * `(none)` marks a failure.
 */
function resultOf(c: Record<string, unknown>, shell: boolean): { output: string; exitCode?: number; error: boolean } {
  const parts = Array.isArray(c.result) ? c.result : c.result === undefined || c.result === null ? [] : [c.result];
  let error = false;
  const texts = parts.map((p) => {
    const o = obj(p);
    if (typeof p === 'string') return p;
    const response = obj(obj(o?.functionResponse)?.response);
    if (response) {
      if (response.error !== undefined) error = true;
      const v = response.output ?? response.error ?? response.content;
      return typeof v === 'string' ? v : JSON.stringify(response);
    }
    return str(o?.text) ?? '';
  });
  let output = texts.filter(Boolean).join('\n');
  if (!output && typeof c.resultDisplay === 'string') output = c.resultDisplay;
  if (!shell) return { output, error };
  const code = /^Exit Code: (-?\d+)/m.exec(output);
  const errLine = /^Error: (.*)$/m.exec(output);
  if (errLine && errLine[1]!.trim() !== '(none)') error = true;
  return { output, ...(code ? { exitCode: Number(code[1]) } : {}), error };
}

export const geminiCliImporter: Importer = { format: 'gemini-cli', title: 'Gemini CLI saved chat (~/.gemini/tmp/<project>/chats/session-*.json)', detect, read };
