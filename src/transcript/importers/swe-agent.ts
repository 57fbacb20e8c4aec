import { EDITOR } from './edits.js';
import { isoTime, num, obj, outputLooksFailed, parseArgs, str, textOf, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Outcome, type Probe } from './types.js';

/**
 * SWE-agent trajectories (`<instance>.traj`, one JSON document). Format from SWE-agent's `sweagent/types.py`
 * (`TrajectoryStep {action, observation, response, thought, execution_time, state, query, extra_info}`,
 * `HistoryItem {role, content, agent, message_type, thought?, action?, tool_calls?, tool_call_ids?, is_demo?}`)
 * and `sweagent/agent/agents.py` (`{trajectory, history, info: {exit_status, submission, model_stats}, replay_config,
 * environment}`). Two forms: the classic one, where an assistant turn's `action` is a command line and the next
 * user message (`message_type: "observation"`) is its output; and the function-calling one, where assistant
 * turns carry OpenAI-style `tool_calls` and outputs are `role: "tool"` messages with `tool_call_ids`.
 * The history is mapped; without one, the trajectory's steps are. SWE-agent records no exit status: a
 * result's `isError` is read from its output. A step's `query`/`messages` (copies of the history up to that
 * step) are left out of the verbatim steps: they repeat the history.
 */
function detect(probe: Probe): boolean {
  const doc = probe.kind === 'json' ? obj(probe.doc) : undefined;
  if (!doc || mini(doc)) return false;
  return (Array.isArray(doc.trajectory) || Array.isArray(doc.history)) && (obj(doc.info) !== undefined || Array.isArray(doc.trajectory));
}

/** mini-swe-agent's documents look alike; they are told apart by their version markers. */
export function mini(doc: Record<string, unknown>): boolean {
  const info = obj(doc.info);
  return String(doc.trajectory_format ?? '').startsWith('mini-swe-agent') || typeof info?.mini_version === 'string' || /minisweagent/.test(String(obj(obj(info?.config))?.agent_type ?? ''));
}

const EXIT: Array<[RegExp, Outcome]> = [
  [/^submitted$/, 'completed'],
  [/cost|budget/, 'budget'],
  [/(^|_)(format|context|error|environment)/, 'error'],
  [/max_steps|steps|turns|limit/, 'max_turns'],
  [/forfeit|early_exit|interrupt/, 'interrupted'],
];

export function exitOutcome(status: unknown): Outcome | undefined {
  if (typeof status !== 'string' || !status) return undefined;
  const s = status.toLowerCase();
  if (/^submitted \(/.test(s)) return exitOutcome(s.slice(11, -1));
  for (const [re, o] of EXIT) if (re.test(s)) return o;
  return 'error';
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const doc = obj(await src.document()) ?? {};
  const info = obj(doc.info) ?? {};
  ctx.meta.outcome = exitOutcome(info.exit_status);
  if (typeof info.swe_agent_version === 'string') ctx.meta.versions['swe-agent'] = info.swe_agent_version;
  const stats = obj(info.model_stats);
  ctx.meta.usage.inputTokens = num(stats?.tokens_sent) ?? 0;
  ctx.meta.usage.outputTokens = num(stats?.tokens_received) ?? 0;
  const model = obj(obj(obj(parseArgs(doc.replay_config)))?.agent)?.model;
  const modelName = str(obj(model)?.name) ?? str(obj(model)?.model_name);
  if (modelName) ctx.meta.model = modelName;
  const history = Array.isArray(doc.history) ? doc.history : [];
  const trajectory = Array.isArray(doc.trajectory) ? doc.trajectory : [];
  // A trajectory is rewritten whole, never appended to: its whole content names it (two runs of one task differ).
  ctx.meta.idSeed = JSON.stringify(doc);
  if (history.length) yield* fromHistory(history, ctx);
  else yield* fromSteps(trajectory, ctx);
  for (const [i, step] of (history.length ? trajectory : []).entries()) {
    const { query: _q, messages: _m, ...rest } = obj(step) ?? ({ step } as Record<string, unknown>);
    yield ctx.verbatim('trajectory step (repeats the history)', rest, i + 1);
  }
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'history' || key === 'trajectory') continue;
    yield key === 'info' || key === 'replay_config' || key === 'environment' ? ctx.verbatim(key, value) : ctx.unknown(`key:${key}`, value);
  }
}

async function* fromHistory(history: unknown[], ctx: ImportContext): AsyncGenerator<ImportEvent> {
  let turn = 0;
  let pending: string[] = [];
  let sawTask = false;
  for (const [i, raw] of history.entries()) {
    const h = obj(raw);
    const role = str(h?.role);
    const n = i + 1;
    if (!h || !role) {
      yield ctx.unknown('history item', raw, n);
      continue;
    }
    const text = textOf(h.content);
    if (h.is_demo === true || h.message_type === 'demonstration') {
      yield ctx.verbatim('demonstration', h, n);
      continue;
    }
    if (role === 'system') {
      ctx.meta.system = text;
      yield ctx.verbatim('system', h, n);
      continue;
    }
    if (role === 'assistant') {
      turn += 1;
      const thought = str(h.thought) ?? text;
      if (thought.trim()) yield { type: 'message', turn, role: 'assistant', text: thought };
      pending = [];
      const calls = Array.isArray(h.tool_calls) ? h.tool_calls : [];
      if (calls.length) {
        for (const c of calls) {
          const fn = obj(obj(c)?.function);
          const id = str(obj(c)?.id) ?? `h${n}-${pending.length}`;
          pending.push(id);
          yield { type: 'tool_call', turn, id, ...mapTool(str(fn?.name) ?? 'unknown', parseArgs(fn?.arguments)) };
        }
      } else if (typeof h.action === 'string' && h.action.trim()) {
        const id = `h${n}`;
        pending.push(id);
        yield { type: 'tool_call', turn, id, name: 'bash', input: { command: h.action.trim() } };
      }
      continue;
    }
    if (role === 'tool' || (role === 'user' && sawTask && pending.length)) {
      const ids = Array.isArray(h.tool_call_ids) ? h.tool_call_ids.map(String) : pending.slice(0, 1);
      for (const id of ids) yield result(id, text, turn);
      pending = pending.filter((p) => !ids.includes(p));
      continue;
    }
    if (role === 'user' && !sawTask) {
      sawTask = true;
      yield { type: 'message', turn, role: 'user', text };
      continue;
    }
    // A user message no action asked for: SWE-agent's own feedback (format errors, reminders), not a person.
    yield ctx.verbatim(`${role}(harness)`, h, n);
  }
}

async function* fromSteps(steps: unknown[], ctx: ImportContext): AsyncGenerator<ImportEvent> {
  for (const [i, raw] of steps.entries()) {
    const s = obj(raw);
    if (!s) {
      yield ctx.unknown('trajectory step', raw, i + 1);
      continue;
    }
    const turn = i + 1;
    const ts = isoTime(s.timestamp);
    const thought = str(s.thought) ?? str(s.response) ?? '';
    if (thought.trim()) yield { type: 'message', turn, role: 'assistant', text: thought, ...(ts ? { ts } : {}) };
    if (typeof s.action === 'string' && s.action.trim()) {
      yield { type: 'tool_call', turn, id: `s${turn}`, name: 'bash', input: { command: s.action.trim() } };
      yield result(`s${turn}`, str(s.observation) ?? '', turn);
    }
  }
}

function result(id: string, output: string, turn: number): Draft {
  return { type: 'tool_result', turn, id, output, isError: outputLooksFailed(output) };
}

/** SWE-agent's function tools: `bash` as ours; `str_replace_editor` is Anthropic's editor under another name. */
function mapTool(name: string, args: unknown): { name: string; input: unknown } {
  const a = obj(args) ?? { value: args };
  if (name === 'str_replace_editor') return { name: EDITOR, input: a };
  if (name === 'bash') return { name, input: { command: str(a.command) ?? '' } };
  return { name, input: a };
}

export const sweAgentImporter: Importer = { format: 'swe-agent', title: 'SWE-agent trajectory (.traj)', detect, read };
