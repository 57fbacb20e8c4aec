import { claudeCodeExitCode, mapClaudeCodeTool } from './claude-code-tools.js';
import { isoTime, num, obj, str, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session-id>.jsonl`, subagents in
 * `<session-id>/subagents/agent-<id>.jsonl`). Format read from Claude Code's own files as documented by the
 * Agent SDK (`SDKMessage`: `{type: 'user'|'assistant', message: <Messages API message>, uuid, parentUuid,
 * sessionId, timestamp, isSidechain, isMeta?, agentId?, toolUseResult?}`) and the session files it writes;
 * other line types (`summary`, `system`, `file-history-snapshot`, `progress`, `queue-operation`) carry no
 * conversation. One assistant message is spread over several lines sharing `message.id` (one block each).
 * A file whose conversation lines are all `isSidechain: true` is a subagent's run: its own rollout
 * (`<session>-<agentId>`), with the parent's task from a `meta.json` beside it when there is one.
 * Sidechain lines inside a main session are kept verbatim (their subagent file is learned on its own).
 */
const KNOWN_PLAIN = new Set(['summary', 'system', 'file-history-snapshot', 'progress', 'queue-operation', 'attachment']);

function detect(probe: Probe): boolean {
  const values = probe.kind === 'jsonl' ? probe.values : probe.kind === 'json' ? [probe.doc] : [];
  return values.some((v) => {
    const o = obj(v);
    return !!o && typeof o.sessionId === 'string' && (typeof o.uuid === 'string' || o.type === 'summary') && typeof o.type === 'string' && !('payload' in o);
  }) || values.some((v) => obj(v)?.type === 'summary' && typeof obj(v)?.leafUuid === 'string');
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const names = new Map<string, string>();
  const seenAssistant = new Set<string>();
  let turn = 0;
  let sidechainRun: boolean | undefined;
  let interrupted = false;
  let parent: string | undefined;
  let firstUser: string | undefined;
  for await (const d of src.lines()) {
    if ('damage' in d) {
      yield ctx.damaged(d.damage);
      continue;
    }
    const ev = obj(d.value);
    const type = str(ev?.type);
    if (!ev || !type) {
      yield ctx.unknown('non-event', d.value, d.line);
      continue;
    }
    const ts = isoTime(ev.timestamp);
    const message = obj(ev.message);
    if ((type !== 'user' && type !== 'assistant') || !message) {
      yield KNOWN_PLAIN.has(type) ? ctx.verbatim(type, ev, d.line, ts) : ctx.unknown(type, ev, d.line, ts);
      continue;
    }
    sidechainRun ??= ev.isSidechain === true;
    if (ev.isSidechain === true && !sidechainRun) {
      yield ctx.verbatim('sidechain', ev, d.line, ts);
      continue;
    }
    if (ev.isMeta === true) {
      yield ctx.verbatim(`${type}(isMeta)`, ev, d.line, ts);
      continue;
    }
    if (!ctx.meta.id && typeof ev.sessionId === 'string') {
      ctx.meta.conversationId = ev.sessionId;
      ctx.meta.id = sidechainRun && typeof ev.agentId === 'string' ? `${ev.sessionId}-${ev.agentId}` : ev.sessionId;
      if (sidechainRun) {
        const found = await parentTask(src, str(ev.agentId));
        parent = found.task;
        if (found.parentSessionId) ctx.meta.conversationId = found.parentSessionId;
        if (found.raw !== undefined) yield ctx.verbatim('meta.json', found.raw);
      }
      if (typeof ev.version === 'string') ctx.meta.versions['claude-code'] = ev.version;
    }
    if (type === 'assistant') {
      const mid = str(message.id) ?? `line-${d.line}`;
      if (!seenAssistant.has(mid)) {
        seenAssistant.add(mid);
        turn += 1;
        const usage = obj(message.usage);
        ctx.meta.usage.inputTokens += num(usage?.input_tokens) ?? 0;
        ctx.meta.usage.outputTokens += num(usage?.output_tokens) ?? 0;
        ctx.meta.usage.cacheReadTokens += num(usage?.cache_read_input_tokens) ?? 0;
        ctx.meta.usage.cacheCreationTokens += num(usage?.cache_creation_input_tokens) ?? 0;
      }
      if (typeof message.model === 'string' && message.model !== '<synthetic>') ctx.meta.model = message.model;
    }
    const content = message.content;
    const blocks: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    for (const raw of blocks) {
      const out = block(raw, type, turn, ts, names, ctx, d.line);
      if (!out) continue;
      if (out.type === 'message' && out.role === 'user') {
        firstUser ??= out.text;
        interrupted = /^\[Request interrupted by user/.test(out.text);
      }
      yield out;
    }
  }
  if (interrupted) ctx.meta.outcome = 'interrupted';
  if (parent) ctx.meta.task = `${parent}\n\nSubagent task: ${firstUser ?? ''}`;
}

function block(raw: unknown, role: 'user' | 'assistant', turn: number, ts: string | undefined, names: Map<string, string>, ctx: ImportContext, line: number): Draft | undefined {
  const b = obj(raw);
  const type = str(b?.type) ?? 'non-object';
  const at = ts ? { ts } : {};
  if (type === 'text' && typeof b?.text === 'string') {
    return b.text.trim() === '' ? undefined : { type: 'message', ...at, turn, role, text: b.text };
  }
  if (type === 'tool_use' && role === 'assistant' && typeof b?.id === 'string' && typeof b.name === 'string') {
    const tool = mapClaudeCodeTool(b.name, b.input ?? {});
    names.set(b.id, tool.name);
    return { type: 'tool_call', ...at, turn, id: b.id, name: tool.name, input: tool.input };
  }
  if (type === 'tool_result' && role === 'user' && typeof b?.tool_use_id === 'string') {
    const c = b.content;
    const output = typeof c === 'string' ? c : Array.isArray(c) ? c.map((x) => (obj(x)?.type === 'text' ? (str(obj(x)?.text) ?? '') : `[${str(obj(x)?.type) ?? 'block'}]`)).join('\n') : '';
    const name = names.get(b.tool_use_id);
    const isError = b.is_error === true;
    const exitCode = name === 'bash' ? claudeCodeExitCode(output, isError) : undefined;
    return { type: 'tool_result', ...at, turn, id: b.tool_use_id, ...(name ? { name } : {}), output, isError, ...(exitCode !== undefined ? { exitCode } : {}) };
  }
  if (type === 'thinking' || type === 'redacted_thinking' || type === 'image' || type === 'document') return ctx.verbatim(`block:${type}`, raw, line, ts);
  return ctx.unknown(`block:${type}`, raw, line, ts);
}

/** A subagent's `agent-<id>.meta.json` (or `meta.json`) beside it: the parent's task and session, and the file as parsed. */
async function parentTask(src: ImportSource, agentId: string | undefined): Promise<{ task?: string; parentSessionId?: string; raw?: unknown }> {
  const text = (await src.sibling('{base}.meta.json')) ?? (agentId ? await src.sibling(`agent-${agentId}.meta.json`) : undefined) ?? (await src.sibling('meta.json'));
  if (!text) return {};
  let meta: Record<string, unknown> | undefined;
  try {
    meta = obj(JSON.parse(text));
  } catch {
    return { raw: text.slice(0, 4096) };
  }
  if (!meta) return { raw: text.slice(0, 4096) };
  const task = str(meta.parentTask) ?? str(meta.description) ?? str(meta.task) ?? str(meta.prompt);
  const parentSessionId = str(meta.parentSessionId) ?? str(meta.sessionId);
  return { ...(task ? { task } : {}), ...(parentSessionId ? { parentSessionId } : {}), raw: meta };
}

export const claudeCodeImporter: Importer = { format: 'claude-code', title: 'Claude Code session JSONL', detect, read };
