import type { NumberedRecord } from '../transcript/schema.js';
import type { MemoryLayout } from '../config/memory.js';

/** How often one rollout looked at memory: per entry id, and per memory file (relative to the memories folder). */
export interface MemoryUse {
  entries: Record<string, number>;
  /** `MEMORY.md`, `memory_summary.md`, `rollout_summaries/<id>.md` … */
  files: Record<string, number>;
}

/** A tool output that shows more entries than this was a whole-file read: it says nothing about which one mattered. */
const MAX_IDS_PER_LOOK = 8;
const ID_RE = /\bm-[0-9a-f]{8}\b/g;
const READ_CMD_RE = /\b(cat|rg|grep|egrep|head|tail|less|more|sed|awk|bat|view|nl)\b/;

function memoryFilesIn(text: string, memoriesDir: string): string[] {
  const dir = memoriesDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?:^|[\\s"'=/])(?:${dir}|memories)/((?:rollout_summaries|raw_memories)/[A-Za-z0-9._-]+\\.md|MEMORY\\.md|memory_summary\\.md|rollout_summaries/?|raw_memories/?)`, 'g');
  return [...text.matchAll(re)].map((m) => m[1]!.replace(/\/$/, ''));
}

function bump(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

/**
 * The use signal of one transcript (issue 5, point 5): which memory files the run opened or searched —
 * the memory tool (`view` of `/memories/…`), the editor's `view`, and shell reads (`cat`, `rg`, `grep`, `head` …)
 * of MEMORY.md, memory_summary.md or rollout summaries — and which entries it actually looked at: entry ids
 * in the output of such a look (a targeted search shows a few; a whole-file read shows all and counts for
 * none) and ids the agent itself named in its messages.
 */
export function countMemoryUse(records: NumberedRecord[], layout: MemoryLayout): MemoryUse {
  const use: MemoryUse = { entries: {}, files: {} };
  const looks = new Set<string>();
  for (const { record } of records) {
    if (record.type === 'tool_call') {
      const input = (record.input ?? {}) as Record<string, unknown>;
      let files: string[] = [];
      if (record.name === 'memory' && typeof input.path === 'string') {
        const rel = input.path.replace(/^\/memories\/?/, '');
        if (input.command === 'view' || input.command === undefined) files = [rel || '.'];
      } else if (record.name === 'str_replace_based_edit_tool' && input.command === 'view' && typeof input.path === 'string') {
        files = memoryFilesIn(` ${input.path}`, layout.memoriesDir);
      } else if (record.name === 'bash' && typeof input.command === 'string' && READ_CMD_RE.test(input.command)) {
        files = memoryFilesIn(` ${input.command}`, layout.memoriesDir);
      }
      if (files.length > 0) {
        looks.add(record.id);
        for (const f of new Set(files)) bump(use.files, f);
      }
    } else if (record.type === 'tool_result' && looks.has(record.id)) {
      const ids = new Set(record.output.match(ID_RE) ?? []);
      if (ids.size <= MAX_IDS_PER_LOOK) for (const id of ids) bump(use.entries, id);
    } else if (record.type === 'message' && record.role === 'assistant') {
      for (const id of new Set(record.text.match(ID_RE) ?? [])) bump(use.entries, id);
    }
  }
  return use;
}

/**
 * Entry uses for ranking: an entry's own count plus the looks at rollout summaries of the rollouts it came
 * from (a run that needed a rollout's detail used what that rollout taught).
 */
export function entryUses(entries: Array<{ id: string; sources: string[] }>, uses: Record<string, number>, fileUses: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) {
    out[e.id] = (uses[e.id] ?? 0) + e.sources.reduce((n, s) => n + (fileUses[`rollout_summaries/${s}.md`] ?? 0), 0);
  }
  return out;
}

const WRITE_CMDS = new Set(['create', 'str_replace', 'insert', 'delete', 'rename']);
const SHELL_WRITE_RE = /(>>?\s*\S*MEMORY\.md|\btee\b[^|]*MEMORY\.md|\bsed\s+-i[^|]*MEMORY\.md|\b(mv|cp|rm)\b[^|]*MEMORY\.md)/;

/**
 * Transcript lines where the run itself changed MEMORY.md (the memory tool's create/str_replace/insert/
 * delete/rename, the editor's writes, or a shell redirect, `tee`, `sed -i`, `mv`, `cp`, `rm` of it). Those
 * changes are the agent's, not a person's: the pipeline turns them into raw memories of the rollout instead
 * of keeping them as hand edits.
 */
export function memoryMdWrites(records: NumberedRecord[], layout: MemoryLayout): number[] {
  const lines: number[] = [];
  for (const { line, record } of records) {
    if (record.type !== 'tool_call') continue;
    const input = (record.input ?? {}) as Record<string, unknown>;
    const paths = [input.path, input.old_path, input.new_path].filter((p): p is string => typeof p === 'string');
    const touches = paths.some((p) => /(^|\/)MEMORY\.md$/.test(p) && (p.startsWith('/memories') || p.includes(`${layout.memoriesDir}/`)));
    if (record.name === 'memory' && WRITE_CMDS.has(String(input.command)) && touches) lines.push(line);
    else if (record.name === 'str_replace_based_edit_tool' && input.command !== 'view' && touches) lines.push(line);
    else if (record.name === 'bash' && typeof input.command === 'string' && SHELL_WRITE_RE.test(input.command)) lines.push(line);
  }
  return lines;
}
