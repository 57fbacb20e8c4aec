import { codeEdit } from './edits.js';
import { wrappedOutput } from './wrapped-output.js';
import { commandLine, isoTime, num, obj, outputLooksFailed, parseArgs, str, textOf, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Outcome, type Probe } from './types.js';

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
/** Item types the SDK writes for a tool call, and (below) for a call's output; `VERBATIM`: known items with nothing to learn. */
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'shell_call', 'local_shell_call', 'apply_patch_call']);
export const OUTPUT_TYPES = new Set(['function_call_output', 'function_call_result', 'shell_call_output', 'local_shell_call_output', 'apply_patch_call_output', 'custom_tool_call_output', 'computer_call_output', 'computer_call_result', 'tool_search_output']);
export const VERBATIM = new Set(['web_search_call', 'computer_call', 'hosted_tool_call', 'file_search_call', 'image_generation_call', 'code_interpreter_call', 'mcp_call', 'mcp_approval_request', 'mcp_approval_response', 'tool_search_call', 'reasoning', 'compaction']);

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const s = newItemState();
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
    for (const it of [...input, ...(Array.isArray(seg.generated_items) ? seg.generated_items : [])]) yield sdkItem(it, d.line, ts, ctx, s);
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

/** What reading one run's items carries from item to item: the turn, which side spoke last, tool names by call id. */
export interface SdkItemState {
  turn: number;
  agentSide: boolean;
  names: Map<string, string>;
  /** The last body item was an assistant message or call marked `status: 'incomplete'` (the run was cut). */
  incomplete: boolean;
}

/** The state before a run's first item (turn 0, the user's side). */
export function newItemState(): SdkItemState {
  return { turn: 0, agentSide: false, names: new Map(), incomplete: false };
}

/**
 * One Agents SDK run item onto a transcript record, for the sandbox memory segments here and the bare run items
 * of `agents-sdk-items.ts`. Items are Responses API input items as the Python SDK writes them
 * (`result.to_input_list()`: snake_case, `{role, content}` messages, `function_call {call_id, name, arguments}`,
 * `function_call_output {call_id, output: string | [{type: 'input_text', text}]}`, `shell_call {action: {commands}}`,
 * `shell_call_output {output: [{stdout, stderr, outcome: {type: 'exit', exit_code}}]}`, `reasoning` …) or as the JS SDK
 * keeps them (`result.history`, openai-agents-js `packages/agents-core/src/types/protocol.ts`: camelCase `callId`,
 * `function_call_result {name, callId, status, output: string | {type: 'text', text} | …}`, `outcome.exitCode`,
 * `hosted_tool_call`, `providerData` on any item, which is ignored). Unknown types are kept verbatim.
 */
export function sdkItem(raw: unknown, line: number, ts: string | undefined, ctx: ImportContext, s: SdkItemState): Draft {
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
  s.incomplete = false;
  if (type === 'message') {
    const text = textOf(it.content) || refusalOf(it.content);
    if (it.role === 'user') {
      s.agentSide = false;
      return { type: 'message', ...at, turn: s.turn, role: 'user', text };
    }
    if (it.role === 'assistant') {
      s.incomplete = it.status === 'incomplete';
      return { type: 'message', ...at, turn: agentTurn(), role: 'assistant', text };
    }
    return ctx.verbatim(`message(${String(it.role)})`, it, line, ts);
  }
  const id = str(it.call_id) ?? str(it.callId) ?? str(it.id) ?? `l${line}`;
  if (CALL_TYPES.has(type)) {
    const tool = mapCall(type, it);
    s.names.set(id, tool.name);
    s.incomplete = it.status === 'incomplete' || it.status === 'in_progress';
    return { type: 'tool_call', ...at, turn: agentTurn(), id, name: tool.name, input: tool.input };
  }
  if (OUTPUT_TYPES.has(type)) {
    s.agentSide = false;
    const name = s.names.get(id) ?? str(it.name);
    const { output, exitCode, failed } = callOutput(it.output, it.status, name === 'bash');
    return { type: 'tool_result', ...at, turn: s.turn, id, ...(name ? { name } : {}), output, isError: failed || (exitCode !== undefined && exitCode !== 0), ...(exitCode !== undefined ? { exitCode } : {}) };
  }
  return VERBATIM.has(type) ? ctx.verbatim(type, it, line, ts) : ctx.unknown(type, it, line, ts);
}

/** The text of refusal parts (`{type: 'refusal', refusal}`), when a message has no other text. */
function refusalOf(content: unknown): string {
  return Array.isArray(content) ? content.map((b) => str(obj(b)?.refusal) ?? '').filter(Boolean).join('\n') : '';
}

/** Function tools whose `command`/`cmd` argument is a shell command line (the tools are the user's own: by name). */
const SHELL_FUNCTION = /^(shell|bash|sh|exec|exec_command|run_command|run_shell|run_shell_command|shell_command|terminal|run_terminal_cmd|execute_command|run_bash)$/i;

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
  if (SHELL_FUNCTION.test(name) && (a.command !== undefined || a.cmd !== undefined)) return { name: 'bash', input: { command: commandLine(a.command ?? a.cmd) } };
  if (name === 'apply_patch') return codeEdit(String(a.input ?? a.patch ?? '')) ?? { name, input: a };
  return { name, input: a };
}

/** An exit status a function tool wrote into its text (`Exit code: 1`, `exit_code: 1`, `"exit_code": 1`). */
const EXIT_LINE = /^\W{0,2}(?:exit[ _]?code|process exited with code)\W{0,3}:?\s*(-?\d+)\b/im;

/**
 * Output of a call: a string, `[{stdout, stderr, outcome: {type: 'exit', exit_code | exitCode}}]` (shell), content
 * parts (`[{type: 'input_text' | 'text', text}]`) or one part (`{type: 'text', text}`, the JS SDK); a string that is
 * wholly Codex's JSON `{output, metadata: {exit_code}}` (`wrappedOutput`) gives its output and exit code. A shell function
 * tool's text is read for an exit code line, else for signs of failure (it has no status of its own).
 */
function callOutput(raw: unknown, status: unknown, shell: boolean): { output: string; exitCode?: number; failed: boolean } {
  const statusFailed = status === 'failed' || status === 'incomplete';
  let text: string;
  let exitCode: number | undefined;
  let timedOut = false;
  if (typeof raw === 'string') {
    // Codex's shell tool replayed as a function call: its exit code is in the JSON text it returns.
    const wrapped = wrappedOutput(raw);
    if (wrapped?.exitCode !== undefined) return { output: wrapped.output, exitCode: wrapped.exitCode, failed: statusFailed };
    text = raw;
  } else if (Array.isArray(raw)) {
    text = raw
      .map((p) => {
        const o = obj(p) ?? {};
        const outcome = obj(o.outcome);
        const code = num(outcome?.exit_code) ?? num(outcome?.exitCode);
        if (code !== undefined) exitCode = code;
        if (outcome?.type === 'timeout') timedOut = true;
        if (typeof o.stdout === 'string' || typeof o.stderr === 'string') return [str(o.stdout), str(o.stderr)].filter(Boolean).join('\n');
        return str(o.text) ?? JSON.stringify(o);
      })
      .join('\n');
  } else if (raw === undefined) text = '';
  else text = str(obj(raw)?.text) ?? JSON.stringify(raw);
  if (exitCode === undefined && shell && !timedOut) {
    const m = EXIT_LINE.exec(text.length > 2000 ? `${text.slice(0, 1000)}\n${text.slice(-1000)}` : text);
    if (m) exitCode = Number(m[1]);
    else if (outputLooksFailed(text)) return { output: text, failed: true };
  }
  return { output: text, ...(exitCode !== undefined ? { exitCode } : {}), failed: statusFailed || timedOut };
}

export const agentsSdkImporter: Importer = { format: 'agents-sdk', title: 'OpenAI Agents SDK sandbox memory session (sessions/*.jsonl)', detect, read };
