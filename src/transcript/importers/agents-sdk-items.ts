import { newItemState, OUTPUT_TYPES, sdkItem, VERBATIM } from './agents-sdk.js';
import { documentOrLines } from './source.js';
import { obj, str, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * OpenAI Agents SDK run items saved by the user: what `result.to_input_list()` (openai-agents-python,
 * `src/agents/result.py`: the run's input followed by its new items as Responses API input items) or
 * `result.history` (openai-agents-js, `packages/agents-core/src/result.ts`; items typed in
 * `packages/agents-core/src/types/protocol.ts`) gives, written one item a line (JSONL) or as one JSON array.
 * Each item is read by `sdkItem` (shared with the sandbox memory sessions of `agents-sdk.ts`): messages,
 * function/shell/apply-patch calls and their outputs (`function_call_output` or the JS `function_call_result`,
 * exit codes from `outcome.exit_code`/`exitCode`, or from a Codex-style JSON output `{output, metadata: {exit_code}}`), reasoning and hosted tools kept verbatim. The items record
 * no times, no model and no run state: times are the file's, and the outcome is left to the store (completed,
 * or interrupted when the file is cut mid-item or the last agent item is marked `incomplete`).
 */
const ITEM_TYPES = new Set([...OUTPUT_TYPES, ...VERBATIM, 'message', 'function_call', 'custom_tool_call', 'shell_call', 'local_shell_call', 'apply_patch_call', 'unknown']);
const ROLES = new Set(['user', 'assistant', 'system', 'developer']);
/** Content part types of the Responses API and the JS SDK (Anthropic's `text`/`tool_use` blocks are not among them). */
const PART_TYPES = new Set(['input_text', 'output_text', 'refusal', 'input_image', 'input_file', 'input_audio', 'audio', 'image', 'reasoning_text', 'summary_text']);

/** Keys of other formats' lines (Codex, Claude Code, OpenHands, mnemara), never on a run item. */
const FOREIGN_KEYS = ['payload', 'timestamp', 'sessionId', 'uuid', 'v', 'ts', 'observation', 'source', 'message'];

/** How a value fits: a run item with a mark only the SDK's items carry, a plain `{role, content}` message, or not an item. */
function fit(v: unknown): 'marked' | 'plain' | 'no' {
  const o = obj(v);
  if (!o) return 'no';
  const type = str(o.type);
  const parts = Array.isArray(o.content) ? o.content.map((p) => (typeof p === 'string' ? 'string' : str(obj(p)?.type) ?? 'none')) : [];
  if (parts.some((t) => t !== 'string' && !PART_TYPES.has(t))) return 'no';
  if (type === undefined || type === 'message') {
    if (!ROLES.has(str(o.role) ?? '') || !('content' in o) || FOREIGN_KEYS.some((k) => k in o)) return 'no';
    return type === 'message' || parts.length > 0 ? 'marked' : 'plain';
  }
  if (FOREIGN_KEYS.some((k) => k in o)) return 'no';
  // A type this reader does not know (a newer SDK's) is still an item when it names its call the SDK's way.
  if (!ITEM_TYPES.has(type)) return typeof (o.call_id ?? o.callId) === 'string' ? 'plain' : 'no';
  if (type === 'unknown') return 'plain';
  const id = o.call_id ?? o.callId ?? o.id;
  if (typeof id === 'string' || type === 'reasoning' || type === 'compaction') return 'marked';
  // Hosted tool items of the JS SDK carry their id in providerData.
  return VERBATIM.has(type) ? 'plain' : 'no';
}

/** The values a probe shows: the first items of a JSONL file, or the first of a JSON array. */
function probed(probe: Probe): unknown[] {
  if (probe.kind === 'jsonl') return probe.values;
  return probe.kind === 'json' && Array.isArray(probe.doc) ? probe.doc.slice(0, 20) : [];
}

/** Every probed value is a run item, and at least one carries a mark of the SDK (plain chat JSONL is not taken). */
function detect(probe: Probe): boolean {
  const fits = probed(probe).map(fit);
  return fits.length > 0 && !fits.includes('no') && fits.includes('marked');
}

/**
 * Why a file that looks partly like run items is not taken (for the refusal): which item is not one. Undefined
 * when fewer than half of the probed values are run items (then it looks like something else).
 */
export function agentsSdkItemsNearMiss(probe: Probe): string | undefined {
  const values = probed(probe);
  const fits = values.map(fit);
  const bad = fits.indexOf('no');
  if (bad < 0 || !fits.includes('marked') || fits.filter((f) => f !== 'no').length * 2 < fits.length) return undefined;
  const keys = Object.keys(obj(values[bad]) ?? {}).slice(0, 8).join(', ') || JSON.stringify(values[bad])?.slice(0, 60);
  return `${fits.filter((f) => f !== 'no').length} of the first ${fits.length} ${probe.kind === 'json' ? 'array items' : 'lines'} are OpenAI Agents SDK run items, but ${probe.kind === 'json' ? 'item' : 'line'} ${bad + 1} is not (keys: ${keys}); save the run with result.to_input_list() (Python) or result.history (JS), one item a line or one JSON array, and remove what else was written into the file`;
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const s = newItemState();
  ctx.meta.model = 'agents-sdk';
  if ((await documentOrLines(src)) === 'document') {
    const doc = await src.document();
    if (!Array.isArray(doc)) {
      yield ctx.unknown('non-array', doc);
      return;
    }
    for (const [i, it] of doc.entries()) {
      yield sdkItem(it, i + 1, undefined, ctx, s);
    }
  } else {
    for await (const d of src.lines()) {
      if ('damage' in d) yield ctx.damaged(d.damage);
      else {
        yield sdkItem(d.value, d.line, undefined, ctx, s);
      }
    }
  }
  if (s.incomplete) ctx.meta.outcome = 'interrupted';
}

export const agentsSdkItemsImporter: Importer = { format: 'agents-sdk', title: 'OpenAI Agents SDK run items (to_input_list() / history as JSONL or a JSON array)', detect, read };
