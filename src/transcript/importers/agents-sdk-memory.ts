import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ImportContext, ImportEvent, ImportSource, Importer, Probe } from './types.js';

/**
 * The consolidated memory of an OpenAI Agents SDK sandbox memory layout (`memories/MEMORY.md`, beside
 * `memory_summary.md`, `rollout_summaries/` and `raw_memories/`), as openai-agents-python's
 * `src/agents/sandbox/memory/manager.py` and phase two write it (the layout Codex's memories use: Markdown
 * written by the consolidation model, lessons as bullets under task-group and topic headings, with
 * `keywords`/`rollout_summary_files` lists that index rather than teach). Recognised by its place in that layout
 * and the absence of mnemara's own header. Each lesson (a bullet, or a paragraph outside lists) becomes one
 * `unknown` record of type `agents-sdk/memory-entry` (`raw: {file, line, heading, text}`): `mnemara learn` turns
 * them into raw memories of one rollout whose source is this file, so consolidation brings them into
 * mnemara's MEMORY.md with that provenance. `memory_summary.md`, `raw_memories/` and `rollout_summaries/` are
 * derived from MEMORY.md and the sessions; the sessions (`sessions/*.jsonl`) are learned as transcripts.
 */
export const MEMORY_ENTRY = 'agents-sdk/memory-entry';
const INDEX_LINE = /^(scope|applies_to|keywords|rollout_summary_files|rollout_path|updated_at):/i;
const INDEX_HEADINGS = /keywords|rollout_summary_files|rollout summaries|files?$|^applies|^scope/i;

function detect(probe: Probe & { path?: string }): boolean {
  if (probe.kind !== 'text' || !probe.path || basename(probe.path) !== 'MEMORY.md') return false;
  if (/<!-- mnemara:memory/.test(probe.head)) return false;
  const dir = dirname(probe.path);
  return ['memory_summary.md', 'rollout_summaries', 'raw_memories'].some((n) => existsSync(join(dir, n)));
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  ctx.meta.task = `Memory brought over from the OpenAI Agents SDK (${src.path})`;
  ctx.meta.idSeed = `agents-sdk-memory:${src.path}`;
  ctx.meta.outcome = 'completed';
  ctx.meta.model = 'agents-sdk';
  let heading = '';
  let para: { line: number; lines: string[] } | undefined;
  const flush = function* (): Generator<ImportEvent> {
    if (para && !INDEX_HEADINGS.test(heading) && !INDEX_LINE.test(para.lines[0] ?? '')) {
      const text = para.lines.join(' ').replace(/\s+/g, ' ').trim();
      if (text) yield ctx.verbatim(MEMORY_ENTRY, { file: src.path, line: para.line, heading, text }, para.line);
    }
    para = undefined;
  };
  for await (const { line, text } of src.textLines()) {
    const h = /^#{1,6}\s+(.*)$/.exec(text);
    if (h) {
      yield* flush();
      heading = h[1]!.trim();
      continue;
    }
    const bullet = /^\s{0,3}(?:[-*+]|\d+\.)\s+(.*)$/.exec(text);
    if (bullet) {
      yield* flush();
      para = { line, lines: [bullet[1]!] };
    } else if (text.trim() === '') yield* flush();
    else if (para) para.lines.push(text.trim());
    else para = { line, lines: [text.trim()] };
  }
  yield* flush();
}

export const agentsSdkMemoryImporter: Importer = { format: 'agents-sdk', title: 'OpenAI Agents SDK memory (memories/MEMORY.md)', detect, read };
