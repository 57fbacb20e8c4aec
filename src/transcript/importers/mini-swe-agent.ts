import { mini, exitOutcome } from './swe-agent.js';
import { num, obj, parseArgs, str, textOf, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * mini-swe-agent trajectories (`*.traj.json`, one JSON document). Format from mini-swe-agent's
 * `src/minisweagent/run/utils/save.py` (`save_traj`: `{info: {exit_status, submission, model_stats: {instance_cost,
 * api_calls}, config, mini_version}, messages, trajectory_format: "mini-swe-agent-1" | "mini-swe-agent-1.1"}`) and
 * its default agent config (`config/default.yaml`): messages are OpenAI chat messages; the assistant puts exactly
 * one command in a ```bash block (or, with tool-call models, in `tool_calls`), and the next user (or `tool`)
 * message is the observation `<returncode>N</returncode><output>…</output>`, which gives the exit code.
 * A user message no command asked for is the harness's feedback (format error, timeout), kept verbatim.
 */
function detect(probe: Probe): boolean {
  const doc = probe.kind === 'json' ? obj(probe.doc) : undefined;
  return !!doc && Array.isArray(doc.messages) && mini(doc);
}

const BASH_BLOCK = /```(?:bash|sh|shell)?\s*\n([\s\S]*?)\n```/;
const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const OUTPUT = /<output>\n?([\s\S]*?)\n?<\/output>/;

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const doc = obj(await src.document()) ?? {};
  const info = obj(doc.info) ?? {};
  ctx.meta.outcome = miniOutcome(info.exit_status);
  if (typeof info.mini_version === 'string') ctx.meta.versions['mini-swe-agent'] = info.mini_version;
  if (typeof doc.trajectory_format === 'string') ctx.meta.versions.format = doc.trajectory_format;
  const model = obj(obj(obj(info.config)?.model));
  if (typeof model?.model_name === 'string') ctx.meta.model = model.model_name;
  const messages = Array.isArray(doc.messages) ? doc.messages : [];
  // Saved whole at the end of a run: its whole content names it (two runs of one task differ).
  ctx.meta.idSeed = JSON.stringify(doc);
  let turn = 0;
  let pending: string[] = [];
  let sawTask = false;
  for (const [i, raw] of messages.entries()) {
    const m = obj(raw);
    const role = str(m?.role);
    const n = i + 1;
    if (!m || !role) {
      yield ctx.unknown('message', raw, n);
      continue;
    }
    const text = textOf(m.content);
    if (role === 'system') {
      ctx.meta.system = text;
      yield ctx.verbatim('system', m, n);
    } else if (role === 'assistant') {
      turn += 1;
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      const block = BASH_BLOCK.exec(text);
      const thought = calls.length ? text : block ? text.slice(0, block.index).trim() : text;
      if (thought.trim()) yield { type: 'message', turn, role: 'assistant', text: thought };
      // A message with no action of its own (a second thought) leaves the earlier action waiting for its output.
      if (calls.length || block) pending = [];
      for (const c of calls) {
        const fn = obj(obj(c)?.function);
        const args = obj(parseArgs(fn?.arguments)) ?? {};
        const id = str(obj(c)?.id) ?? `m${n}-${pending.length}`;
        pending.push(id);
        yield { type: 'tool_call', turn, id, name: 'bash', input: { command: str(args.command) ?? JSON.stringify(args) } };
      }
      if (!calls.length && block) {
        pending.push(`m${n}`);
        yield { type: 'tool_call', turn, id: `m${n}`, name: 'bash', input: { command: block[1]!.trim() } };
      }
    } else if (pending.length && (role === 'tool' || (role === 'user' && sawTask))) {
      const id = str(m.tool_call_id) ?? pending[0]!;
      pending = pending.filter((p) => p !== id);
      const code = RETURN_CODE.exec(text);
      const exitCode = code ? Number(code[1]) : undefined;
      const output = OUTPUT.exec(text)?.[1] ?? text;
      yield { type: 'tool_result', turn, id, name: 'bash', output, isError: exitCode !== undefined ? exitCode !== 0 : false, ...(exitCode !== undefined ? { exitCode } : {}) };
    } else if (role === 'user' && !sawTask) {
      sawTask = true;
      yield { type: 'message', turn, role: 'user', text };
    } else {
      yield ctx.verbatim(`${role}(harness)`, m, n);
    }
  }
  const stats = obj(info.model_stats);
  if (num(stats?.api_calls) !== undefined) ctx.meta.versions.apiCalls = String(stats!.api_calls);
  yield ctx.verbatim('info', info);
  for (const [key, value] of Object.entries(doc)) if (!['info', 'messages', 'trajectory_format'].includes(key)) yield ctx.unknown(`key:${key}`, value);
}

function miniOutcome(status: unknown): ReturnType<typeof exitOutcome> {
  if (typeof status !== 'string') return undefined;
  if (/^submitted$/i.test(status)) return 'completed';
  if (/limitsexceeded/i.test(status)) return 'max_turns';
  return exitOutcome(status);
}

export const miniSweAgentImporter: Importer = { format: 'mini-swe-agent', title: 'mini-swe-agent trajectory (.traj.json)', detect, read };
