import { EDITOR } from './edits.js';
import { documentOrLines } from './source.js';
import { isoTime, num, obj, str, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * OpenHands event streams: a trajectory (a JSON array of events, or `{history|events: [...]}`, as saved by
 * `save_trajectory_path` / the UI's export) or JSONL, one event a line. Format from OpenHands'
 * `openhands/events/serialization/event.py` (`event_to_dict`: `{id, timestamp, source, message, action | observation,
 * args | content + extras, cause, tool_call_metadata?, llm_metrics?}`), the action types in
 * `openhands/core/schema/action.py` (`message`, `system`, `run`, `run_ipython`, `read`, `write`, `edit`, `think`,
 * `finish`, `browse` …) and observation types in `openhands/core/schema/observation.py` (`run` with
 * `extras.metadata.exit_code`, `read`, `edit`, `error`, `agent_state_changed` …). An observation answers the
 * action whose id is its `cause`. A last `agent_state: "error"` gives its `reason` as the run's error, and the outcome
 * it names: the iteration limit (`max_turns`), the budget (`budget`), else `error`.
 */
function events(probe: Probe): unknown[] {
  if (probe.kind === 'jsonl') return probe.values;
  if (probe.kind !== 'json') return [];
  if (Array.isArray(probe.doc)) return probe.doc.slice(0, 20);
  const d = obj(probe.doc);
  const list = d?.history ?? d?.events ?? (d && ('action' in d || 'observation' in d) ? [d] : undefined);
  return Array.isArray(list) ? list.slice(0, 20) : [];
}

function isEvent(v: unknown): boolean {
  const e = obj(v);
  return !!e && (typeof e.action === 'string' || typeof e.observation === 'string') && (typeof e.source === 'string' || 'id' in e);
}

function detect(probe: Probe): boolean {
  const list = events(probe);
  return list.length > 0 && list.filter(isEvent).length >= Math.ceil(list.length / 2);
}

const VERBATIM_ACTIONS = new Set(['recall', 'condensation', 'change_agent_state', 'null', 'mcp', 'task_tracking', 'delegate', 'reject']);

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const state: State = { turn: 0, agentSide: false, lastState: '', reason: '', finished: undefined };
  const first = await documentOrLines(src);
  if (first === 'document') {
    const doc = await src.document();
    const d = obj(doc);
    const list = Array.isArray(doc) ? doc : Array.isArray(d?.history) ? d.history : Array.isArray(d?.events) ? d.events : [doc];
    ctx.meta.idSeed = JSON.stringify(doc);
    for (const [i, ev] of list.entries()) yield one(ev, i + 1, ctx, state);
    if (d) for (const [k, v] of Object.entries(d)) if (k !== 'history' && k !== 'events') yield ctx.unknown(`key:${k}`, v);
  } else {
    for await (const d of src.lines()) {
      if ('damage' in d) yield ctx.damaged(d.damage);
      else {
        if (!ctx.meta.idSeed) ctx.meta.idSeed = JSON.stringify(d.value);
        yield one(d.value, d.line, ctx, state);
      }
    }
  }
  if (state.finished !== undefined || state.lastState === 'finished') ctx.meta.outcome = state.finished === 'false' ? 'error' : 'completed';
  else if (state.lastState === 'error') {
    // The controller's reason says what stopped it: its iteration or budget limit, or an exception.
    ctx.meta.outcome = /\bmax(imum)? iterations?\b/i.test(state.reason) ? 'max_turns' : /\bmax(imum)? budget\b/i.test(state.reason) ? 'budget' : 'error';
    if (state.reason) ctx.meta.error = state.reason;
  }
  else if (['stopped', 'paused', 'awaiting_user_input', 'user_rejected'].includes(state.lastState)) ctx.meta.outcome = 'interrupted';
}

type State = { turn: number; agentSide: boolean; lastState: string; reason: string; finished: string | undefined };

function one(raw: unknown, n: number, ctx: ImportContext, state: State): Draft {
  const e = obj(raw);
  if (!e || !isEvent(e)) return ctx.unknown('non-event', raw, n);
  const ts = isoTime(e.timestamp);
  const at = ts ? { ts } : {};
  const args = obj(e.args) ?? {};
  const model = str(obj(obj(e.tool_call_metadata)?.model_response)?.model);
  if (model) ctx.meta.model = model;
  const id = String(e.id ?? `e${n}`);
  const agentTurn = (): number => {
    if (!state.agentSide) {
      state.turn += 1;
      state.agentSide = true;
    }
    return state.turn;
  };
  if (typeof e.action === 'string') {
    const action = e.action;
    const fromUser = e.source === 'user';
    if (action === 'system') {
      ctx.meta.system = str(args.content) ?? '';
      return ctx.verbatim('action:system', e, n, ts);
    }
    if (action === 'message') {
      const text = str(args.content) ?? str(e.message) ?? '';
      if (fromUser) {
        state.agentSide = false;
        return { type: 'message', ...at, turn: state.turn, role: 'user', text };
      }
      return { type: 'message', ...at, turn: agentTurn(), role: 'assistant', text };
    }
    if (action === 'think') return { type: 'message', ...at, turn: agentTurn(), role: 'assistant', text: str(args.thought) ?? str(e.message) ?? '' };
    if (action === 'finish') {
      state.finished = String(args.task_completed ?? 'true');
      const out = obj(args.outputs);
      return { type: 'message', ...at, turn: agentTurn(), role: 'assistant', text: str(args.final_thought) ?? str(args.thought) ?? str(out?.content) ?? str(e.message) ?? '' };
    }
    const tool = mapAction(action, args);
    if (tool) return { type: 'tool_call', ...at, turn: agentTurn(), id, name: tool.name, input: tool.input };
    return VERBATIM_ACTIONS.has(action) ? ctx.verbatim(`action:${action}`, e, n, ts) : ctx.unknown(`action:${action}`, e, n, ts);
  }
  const obs = String(e.observation);
  const extras = obj(e.extras) ?? {};
  if (obs === 'agent_state_changed') {
    state.lastState = str(extras.agent_state) ?? '';
    state.reason = str(extras.reason) ?? '';
    return ctx.verbatim('observation:agent_state_changed', e, n, ts);
  }
  if (e.cause === undefined || e.cause === null || ['null', 'recall', 'condensation'].includes(obs)) return ctx.verbatim(`observation:${obs}`, e, n, ts);
  state.agentSide = false;
  const code = num(obj(extras.metadata)?.exit_code) ?? num(extras.exit_code);
  const output = str(e.content) ?? '';
  const isError = obs === 'error' || obs === 'user_rejected' || (code !== undefined && code !== 0 && code !== -1);
  return {
    type: 'tool_result', ...at, turn: state.turn, id: String(e.cause), output, isError,
    ...(code !== undefined && code !== -1 ? { exitCode: code } : {}),
  };
}

function mapAction(action: string, a: Record<string, unknown>): { name: string; input: unknown } | undefined {
  switch (action) {
    case 'run':
      return { name: 'bash', input: { command: str(a.command) ?? '' } };
    case 'run_ipython':
      return { name: 'ipython', input: { code: str(a.code) ?? '' } };
    case 'read':
      return { name: EDITOR, input: { command: 'view', path: str(a.path) ?? '' } };
    case 'write':
      return { name: EDITOR, input: { command: 'create', path: str(a.path) ?? '', file_text: a.content } };
    case 'edit': {
      const command = str(a.command);
      return { name: EDITOR, input: { ...a, command: command && command !== 'view' ? command : command ?? 'str_replace', path: str(a.path) ?? '' } };
    }
    case 'browse':
    case 'browse_interactive':
      return { name: action, input: a };
    default:
      return undefined;
  }
}

export const openHandsImporter: Importer = { format: 'openhands', title: 'OpenHands event stream (trajectory JSON / JSONL)', detect, read };
