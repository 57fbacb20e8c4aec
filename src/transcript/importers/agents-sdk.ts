import { codeEdit } from './edits.js';
import { commandLine, isoTime, num, obj, parseArgs, str, textOf, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Outcome, type Probe } from './types.js';

/**
 * OpenAI Agents SDK sandbox memory transcripts (`<memory layout>/sessions/<rollout_id>.jsonl`). Format from
 * openai-agents-python `src/agents/sandbox/memory/rollouts.py` (`build_rollout_payload`: one line per run
 * segment, `{updated_at, rollout_id, input: [items], generated_items: [items], interruptions?, terminal_metadata:
 * {terminal_state, exception_type, exception_message, has_final_output}, final_output?}`) and `manager.py`
 * (segments of one rollout are appended to one file). Items are Responses API input items: user/assistant
 * `message`s, `function_call`/`function_call_output`, `shell_call`/`shell_call_output` (exit code in
 * `output[].outcome.exit_code`), `local_shell_call`, `apply_patch_call`, `custom_tool_call` …; the SDK already
 * left out reasoning and system/developer messages. The outcome is the last segment's `terminal_state`.
 */
function detect(probe: Probe): boolean {
  const values = probe.kind === 'jsonl' ? probe.values : probe.kind === 'json' ? [probe.doc] : [];
  return values.some((v) => {
    const o = obj(v);
    return !!o && obj(o.terminal_metadata) !== undefined && (Array.isArray(o.generated_items) || 'input' in o);
  });
}

const STATES: Record<string, Outcome> = {
  completed: 'completed', interrupted: 'interrupted', cancelled: 'interrupted', failed: 'error', max_turns_exceeded: 'max_turns', guardrail_tripped: 'error',
};
const OUTPUT_TYPES = new Set(['function_call_output', 'shell_call_output', 'local_shell_call_output', 'apply_patch_call_output', 'custom_tool_call_output', 'computer_call_output', 'tool_search_output']);
const VERBATIM = new Set(['web_search_call', 'computer_call', 'mcp_call', 'mcp_approval_request', 'mcp_approval_response', 'tool_search_call', 'reasoning', 'compaction']);

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const s = { turn: 0, agentSide: false, names: new Map<string, string>() };
  for await (const d of src.lines()) {
    if ('damage' in d) {
      yield ctx.damaged(d.damage);
      continue;
    }
    const seg = obj(d.value);
    if (!seg || !obj(seg.terminal_metadata)) {
      yield ctx.unknown('non-segment', d.value, d.line);
      continue;
    }
    const ts = isoTime(seg.updated_at);
    if (typeof seg.rollout_id === 'string') ctx.meta.id ??= seg.rollout_id;
    const input = typeof seg.input === 'string' ? [{ role: 'user', content: seg.input }] : Array.isArray(seg.input) ? seg.input : [];
    for (const it of [...input, ...(Array.isArray(seg.generated_items) ? seg.generated_items : [])]) yield item(it, d.line, ts, ctx, s);
    const term = obj(seg.terminal_metadata)!;
    ctx.meta.outcome = STATES[str(term.terminal_state) ?? ''] ?? 'interrupted';
    const exc = [str(term.exception_type), str(term.exception_message)].filter(Boolean).join(': ');
    if (exc) ctx.meta.error = exc;
    ctx.meta.endedAt = ts;
    if (seg.interruptions !== undefined) yield ctx.verbatim('interruptions', seg.interruptions, d.line, ts);
    if (seg.final_output !== undefined && typeof seg.final_output !== 'string') yield ctx.verbatim('final_output', seg.final_output, d.line, ts);
    for (const k of Object.keys(seg)) {
      if (!['updated_at', 'rollout_id', 'input', 'generated_items', 'terminal_metadata', 'interruptions', 'final_output'].includes(k)) yield ctx.unknown(`key:${k}`, seg[k], d.line, ts);
    }
  }
}

function item(raw: unknown, line: number, ts: string | undefined, ctx: ImportContext, s: { turn: number; agentSide: boolean; names: Map<string, string> }): Draft {
  const it = obj(raw);
  const at = ts ? { ts } : {};
  if (!it) return ctx.unknown('item', raw, line, ts);
  const type = str(it.type) ?? (it.role ? 'message' : 'untyped');
  const agentTurn = (): number => {
    if (!s.agentSide) {
      s.turn += 1;
      s.agentSide = true;
    }
    return s.turn;
  };
  if (type === 'message') {
    const text = textOf(it.content);
    if (it.role === 'user') {
      s.agentSide = false;
      return { type: 'message', ...at, turn: s.turn, role: 'user', text };
    }
    if (it.role === 'assistant') return { type: 'message', ...at, turn: agentTurn(), role: 'assistant', text };
    return ctx.verbatim(`message(${String(it.role)})`, it, line, ts);
  }
  const id = str(it.call_id) ?? str(it.id) ?? `l${line}`;
  if (type === 'function_call' || type === 'custom_tool_call' || type === 'shell_call' || type === 'local_shell_call' || type === 'apply_patch_call') {
    const tool = mapCall(type, it);
    s.names.set(id, tool.name);
    return { type: 'tool_call', ...at, turn: agentTurn(), id, name: tool.name, input: tool.input };
  }
  if (OUTPUT_TYPES.has(type)) {
    s.agentSide = false;
    const { output, exitCode, failed } = callOutput(it.output, it.status);
    const name = s.names.get(id);
    return { type: 'tool_result', ...at, turn: s.turn, id, ...(name ? { name } : {}), output, isError: failed || (exitCode !== undefined && exitCode !== 0), ...(exitCode !== undefined ? { exitCode } : {}) };
  }
  return VERBATIM.has(type) ? ctx.verbatim(type, it, line, ts) : ctx.unknown(type, it, line, ts);
}

function mapCall(type: string, it: Record<string, unknown>): { name: string; input: unknown } {
  if (type === 'shell_call' || type === 'local_shell_call') {
    const action = obj(it.action) ?? {};
    const commands = Array.isArray(action.commands) ? action.commands.map(String).join(' && ') : commandLine(action.command);
    return { name: 'bash', input: { command: commands } };
  }
  if (type === 'apply_patch_call') {
    const op = obj(it.operation) ?? {};
    const path = str(op.path) ?? '';
    return { name: 'str_replace_based_edit_tool', input: { command: op.type === 'create_file' ? 'create' : 'str_replace', path, diff: op.diff } };
  }
  const name = str(it.name) ?? 'unknown';
  const args = type === 'custom_tool_call' ? { input: it.input } : parseArgs(it.arguments);
  const a = obj(args) ?? { value: args };
  if (['shell', 'bash', 'exec_command', 'run_command'].includes(name) && (a.command !== undefined || a.cmd !== undefined)) return { name: 'bash', input: { command: commandLine(a.command ?? a.cmd) } };
  if (name === 'apply_patch') return codeEdit(String(a.input ?? a.patch ?? '')) ?? { name, input: a };
  return { name, input: a };
}

/** Output of a call: a string, `[{stdout, stderr, outcome: {type: 'exit', exit_code}}]` (shell), or content parts. */
function callOutput(raw: unknown, status: unknown): { output: string; exitCode?: number; failed: boolean } {
  if (typeof raw === 'string') return { output: raw, failed: status === 'failed' };
  if (Array.isArray(raw)) {
    let exitCode: number | undefined;
    const parts = raw.map((p) => {
      const o = obj(p) ?? {};
      const code = num(obj(o.outcome)?.exit_code);
      if (code !== undefined) exitCode = code;
      if (typeof o.stdout === 'string' || typeof o.stderr === 'string') return [str(o.stdout), str(o.stderr)].filter(Boolean).join('\n');
      return str(o.text) ?? JSON.stringify(o);
    });
    return { output: parts.join('\n'), ...(exitCode !== undefined ? { exitCode } : {}), failed: status === 'failed' || obj(obj(raw[0])?.outcome)?.type === 'timeout' };
  }
  return { output: raw === undefined ? '' : JSON.stringify(raw), failed: status === 'failed' };
}

export const agentsSdkImporter: Importer = { format: 'agents-sdk', title: 'OpenAI Agents SDK sandbox memory session (sessions/*.jsonl)', detect, read };
