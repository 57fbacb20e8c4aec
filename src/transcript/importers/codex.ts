import { codeEdit, EDITOR } from './edits.js';
import { wrappedOutput } from './wrapped-output.js';
import { commandLine, isoTime, num, obj, parseArgs, str, textOf, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`). Format from
 * codex-rs (`protocol/src/protocol.rs`: `RolloutLine {timestamp, type, payload}` with `RolloutItem` =
 * `session_meta` | `response_item` | `event_msg` | `turn_context` | `compacted`; `protocol/src/models.rs`:
 * `ResponseItem` = `message` | `reasoning` | `function_call` | `function_call_output` | `local_shell_call` |
 * `custom_tool_call` | `custom_tool_call_output` | `web_search_call` …). Older rollouts (before the
 * `RolloutLine` wrapper) start with a bare `{id, timestamp, instructions}` line followed by bare response items
 * and `{record_type: "state"}` lines; both are read. A rollout cut off mid-line is read up to the cut.
 * `event_msg` lines are Codex's UI stream: they repeat the response items, except token counts (usage),
 * `exec_command_end` (exit codes) and `turn_aborted` (outcome), which are mapped; `task_complete` ends a turn, whatever its result.
 */
const ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'local_shell_call', 'custom_tool_call', 'custom_tool_call_output', 'web_search_call']);
const LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const KNOWN_EVENTS = new Set([
  'user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_section_break', 'token_count',
  'exec_command_begin', 'exec_command_end', 'exec_command_output_delta', 'patch_apply_begin', 'patch_apply_end', 'task_started',
  'task_complete', 'turn_aborted', 'error', 'stream_error', 'turn_diff', 'plan_update', 'mcp_tool_call_begin', 'mcp_tool_call_end',
  'web_search_begin', 'web_search_end', 'background_event', 'entered_review_mode', 'exited_review_mode', 'context_compacted', 'view_image_tool_call',
]);
const SHELL_TOOLS = new Set(['shell', 'container.exec', 'exec_command', 'shell_command', 'local_shell']);
const CONTEXT_TEXT = /^\s*(<user_instructions>|<environment_context>|# AGENTS\.md instructions|<INSTRUCTIONS>)/;

function detect(probe: Probe): boolean {
  const values = probe.kind === 'jsonl' ? probe.values : probe.kind === 'json' ? [probe.doc] : [];
  if (values.some((v) => LINE_TYPES.has(str(obj(v)?.type) ?? '') && obj(obj(v)?.payload) !== undefined && typeof obj(v)?.timestamp === 'string')) return true;
  const first = obj(values[0]);
  return !!first && typeof first.id === 'string' && typeof first.timestamp === 'string' && !('type' in first) &&
    values.slice(1).some((v) => ITEM_TYPES.has(str(obj(v)?.type) ?? '') || obj(v)?.record_type === 'state');
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const state = { turn: 0, assistantSide: false, exitCodes: new Map<string, number>(), names: new Map<string, string>(), last: '' };
  for await (const d of src.lines()) {
    if ('damage' in d) {
      yield ctx.damaged(d.damage);
      continue;
    }
    const line = obj(d.value);
    if (!line) {
      yield ctx.unknown('non-object', d.value, d.line);
      continue;
    }
    const ts = isoTime(line.timestamp);
    const type = str(line.type);
    const payload = obj(line.payload);
    if (type && LINE_TYPES.has(type) && payload) {
      if (type === 'session_meta') {
        sessionMeta(payload, ctx, ts);
        yield ctx.verbatim('session_meta', line, d.line, ts);
      } else if (type === 'turn_context') {
        if (typeof payload.model === 'string') ctx.meta.model = payload.model;
        yield ctx.verbatim('turn_context', line, d.line, ts);
      } else if (type === 'compacted') yield ctx.verbatim('compacted', line, d.line, ts);
      else if (type === 'event_msg') yield event(payload, line, d.line, ts, ctx, state);
      else yield item(payload, line, d.line, ts, ctx, state);
      continue;
    }
    // Older rollouts: a bare session header, bare response items, state lines.
    if (type && ITEM_TYPES.has(type)) yield item(line, line, d.line, ts, ctx, state);
    else if (!type && typeof line.id === 'string' && typeof line.timestamp === 'string' && !ctx.meta.id) {
      sessionMeta(line, ctx, ts);
      yield ctx.verbatim('session_meta(legacy)', line, d.line, ts);
    } else if (line.record_type === 'state') yield ctx.verbatim('record_type:state', line, d.line, ts);
    else yield ctx.unknown(type ?? 'untyped', line, d.line, ts);
  }
  // `task_complete` only says the agent's turn ended, not that the task got done: the store tells how it ended.
  if (state.last === 'turn_aborted') ctx.meta.outcome = 'interrupted';
}

function sessionMeta(p: Record<string, unknown>, ctx: ImportContext, ts: string | undefined): void {
  const m = obj(p.meta) ?? p;
  if (typeof m.id === 'string') ctx.meta.id = m.id;
  ctx.meta.startedAt = isoTime(m.timestamp) ?? ts;
  if (typeof m.instructions === 'string') ctx.meta.system = m.instructions;
  if (typeof m.cli_version === 'string') ctx.meta.versions.codex = m.cli_version;
  if (typeof m.cwd === 'string') ctx.meta.versions.cwd = m.cwd;
}

type State = { turn: number; assistantSide: boolean; exitCodes: Map<string, number>; names: Map<string, string>; last: string };

function assistantTurn(state: State): number {
  if (!state.assistantSide) {
    state.turn += 1;
    state.assistantSide = true;
  }
  return state.turn;
}

function item(p: Record<string, unknown>, line: unknown, n: number, ts: string | undefined, ctx: ImportContext, state: State): Draft {
  const at = ts ? { ts } : {};
  const type = str(p.type) ?? 'untyped';
  if (type === 'message') {
    const role = str(p.role);
    const text = textOf(p.content);
    if (role === 'assistant') {
      state.last = 'assistant';
      return { type: 'message', ...at, turn: assistantTurn(state), role: 'assistant', text };
    }
    if (role === 'user' && !CONTEXT_TEXT.test(text)) {
      state.assistantSide = false;
      state.last = 'user';
      return { type: 'message', ...at, turn: state.turn, role: 'user', text };
    }
    return ctx.verbatim(`response_item/message(${role ?? 'no role'}${role === 'user' ? ' context' : ''})`, line, n, ts);
  }
  if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
    const id = str(p.call_id) ?? str(p.id) ?? `line-${n}`;
    const args = type === 'local_shell_call' ? obj(p.action) ?? {} : type === 'custom_tool_call' ? { input: p.input } : parseArgs(p.arguments);
    const name = type === 'local_shell_call' ? 'local_shell' : str(p.name) ?? 'unknown';
    const tool = mapTool(name, obj(args) ?? { value: args });
    state.names.set(id, tool.name);
    state.last = 'call';
    return { type: 'tool_call', ...at, turn: assistantTurn(state), id, name: tool.name, input: tool.input };
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    const id = str(p.call_id) ?? `line-${n}`;
    state.assistantSide = false;
    state.last = 'result';
    const { output, exitCode } = toolOutput(p.output);
    const code = exitCode ?? state.exitCodes.get(id);
    const name = state.names.get(id);
    const failed = obj(p.output)?.success === false;
    return { type: 'tool_result', ...at, turn: state.turn, id, ...(name ? { name } : {}), output, isError: failed || (code !== undefined && code !== 0), ...(code !== undefined ? { exitCode: code } : {}) };
  }
  if (type === 'reasoning' || type === 'web_search_call') return ctx.verbatim(`response_item/${type}`, line, n, ts);
  return ctx.unknown(`response_item/${type}`, line, n, ts);
}

function event(p: Record<string, unknown>, line: unknown, n: number, ts: string | undefined, ctx: ImportContext, state: State): Draft {
  const type = str(p.type) ?? 'untyped';
  if (type === 'token_count') {
    const total = obj(obj(p.info)?.total_token_usage);
    if (total) {
      const cached = num(total.cached_input_tokens) ?? 0;
      ctx.meta.usage = { inputTokens: Math.max(0, (num(total.input_tokens) ?? 0) - cached), outputTokens: num(total.output_tokens) ?? 0, cacheReadTokens: cached, cacheCreationTokens: 0 };
    }
  } else if (type === 'exec_command_end' && typeof p.call_id === 'string' && num(p.exit_code) !== undefined) {
    state.exitCodes.set(p.call_id, num(p.exit_code)!);
  } else if (type === 'task_complete' || type === 'turn_aborted') state.last = type;
  else if (type === 'error' && typeof p.message === 'string') {
    ctx.meta.error = p.message;
    ctx.meta.outcome = 'error';
  }
  return KNOWN_EVENTS.has(type) ? ctx.verbatim(`event_msg/${type}`, line, n, ts) : ctx.unknown(`event_msg/${type}`, line, n, ts);
}

/** Codex's shell tools onto mnemara's `bash`; `apply_patch` onto the editor (so phase 1 sees which files changed). */
function mapTool(name: string, args: Record<string, unknown>): { name: string; input: unknown } {
  if (SHELL_TOOLS.has(name)) {
    const cmd = commandLine(args.command ?? args.cmd);
    const patch = /^apply_patch\s+<<'?EOF'?\n([\s\S]*)/.exec(cmd);
    if (patch) return codeEdit(patch[1]!) ?? { name: 'bash', input: { command: cmd } };
    return { name: 'bash', input: { command: cmd, ...(typeof args.workdir === 'string' ? { workdir: args.workdir } : {}) } };
  }
  if (name === 'apply_patch') return codeEdit(String(args.input ?? args.patch ?? '')) ?? { name, input: args };
  return { name: name === EDITOR ? `${name}(codex)` : name, input: args };
}

/**
 * A tool output: a string that is JSON `{output, metadata: {exit_code, duration_seconds}}` (older Codex), a
 * text with an `Exit code: N` header (newer Codex), a plain string, or `{content, success}`.
 */
function toolOutput(raw: unknown): { output: string; exitCode?: number } {
  const o = obj(raw);
  if (o) return { output: typeof o.content === 'string' ? o.content : textOf(o.content) || JSON.stringify(o) };
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? '');
  const wrapped = wrappedOutput(text);
  if (wrapped) return wrapped;
  const header = /^(?:Exit code|Process exited with code):? (-?\d+)\b/m.exec(text.slice(0, 400));
  if (header) {
    const body = /\nOutput:\n([\s\S]*)$/.exec(text);
    return { output: body ? body[1]! : text, exitCode: Number(header[1]) };
  }
  return { output: text };
}

export const codexImporter: Importer = { format: 'codex', title: 'OpenAI Codex CLI rollout JSONL', detect, read };
