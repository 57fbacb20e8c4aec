import type { BetaContentBlock, BetaToolResultBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ToolCallDetail } from './tools/index.js';
import { redactDeep, type TranscriptWriter } from '../transcript/writer.js';
import { redactSecretPieces, type ReplacedSecret } from '../memory/redact-split-secrets.js';

/** Appends a reply's text (one `message` record, text blocks joined) and one `tool_call` record per `tool_use`. */
export async function recordReply(writer: TranscriptWriter, turn: number, content: BetaContentBlock[]): Promise<void> {
  const text = content
    .filter((b): b is Extract<BetaContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
  if (text !== '') await writer.append({ type: 'message', turn, role: 'assistant', text });
  for (const b of content) {
    if (b.type === 'tool_use') await writer.append({ type: 'tool_call', turn, id: b.id, name: b.name, input: b.input });
  }
}

/**
 * The reply's content with each piece of `secrets` (values tool outputs showed, `replacedSecrets`) that a tool
 * call's input holds replaced by its marker (`redactSecretPieces`); the same array when no input held one.
 */
export function withSecretPiecesRedacted(content: BetaContentBlock[], secrets: readonly ReplacedSecret[]): BetaContentBlock[] {
  if (secrets.length === 0) return content;
  let changed = false;
  const out = content.map((b) => {
    if (b.type !== 'tool_use') return b;
    const input = redactDeep(b.input, (s) => redactSecretPieces(s, secrets));
    if (JSON.stringify(input) === JSON.stringify(b.input)) return b;
    changed = true;
    return { ...b, input };
  });
  return changed ? out : content;
}

/** Appends one `tool_result` per result block, with what the tool wrapper measured (exit code, ms) when it ran. */
export async function recordResults(
  writer: TranscriptWriter,
  turn: number,
  results: BetaToolResultBlockParam[],
  details: Map<string, ToolCallDetail>,
): Promise<void> {
  for (const r of results) {
    if (r.type !== 'tool_result') continue;
    const d = details.get(r.tool_use_id);
    await writer.append({
      type: 'tool_result',
      turn,
      id: r.tool_use_id,
      ...(d ? { name: d.name } : {}),
      output: d?.output ?? flatten(r.content),
      isError: d?.isError ?? r.is_error === true,
      ...(d?.exitCode !== undefined ? { exitCode: d.exitCode } : {}),
      ...(d ? { durationMs: d.durationMs } : {}),
      ...(d?.timedOut !== undefined ? { timedOut: d.timedOut } : {}),
      ...(d?.truncated !== undefined ? { truncated: d.truncated } : {}),
    });
  }
}

function flatten(content: BetaToolResultBlockParam['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
}
