import { type MemoryKind } from './types.js';
import { entryId } from './normalize.js';
import { clipGraphemes } from './tokens.js';
import { KIND_ORDER, SECTION_TITLES, entryLine, headerComment, kindOfHeading, parseHandbookInfo, type HandBlock, type HandbookInfo, type MemoryEntry } from './memory-md.js';

/**
 * `memories/memory_summary.md`, the short file a run's prompt is built from (issue 5, "Formats"): written from
 * the handbook's entries (`memory-md.ts`) and parsed back by the read path.
 */

/**
 * Renders `memory_summary.md`: the few entries that matter most, by section, each ending with its id in
 * brackets (`[m-1a2b3c4d]`) so that a run can find the full entry and its sources in MEMORY.md. A person's
 * own sections of MEMORY.md (`blocks` with a heading) are named in one line, so a run knows to read them.
 */
export function renderSummary(entries: MemoryEntry[], info: HandbookInfo, blocks: HandBlock[] = []): string {
  const out = ['# Memory summary', '', headerComment('summary', info), ''];
  const own = handSectionsLine(blocks);
  if (own) out.push(own, '');
  for (const kind of KIND_ORDER) {
    const of = entries.filter((e) => e.kind === kind);
    if (of.length === 0) continue;
    out.push(`## ${SECTION_TITLES[kind]}`, '');
    for (const e of of) out.push(`- ${entryLine(e.text)} [${e.id}]`);
    out.push('');
  }
  if (entries.length === 0) out.push('_No lessons yet._', '');
  return out.join('\n');
}

/** Headings named at most, and their length in characters, in the summary's line about a person's sections. */
const NAMED_SECTIONS = 6;
const NAMED_SECTION_CHARS = 60;

/** The summary's line naming a person's own sections of MEMORY.md; `null` when there are none. */
export function handSectionsLine(blocks: HandBlock[]): string | null {
  const titles = blocks.filter((b) => b.ownHeading).map((b) => b.lines[0]!.replace(/^#+\s+/, '').replace(/\s*#*\s*$/, ''));
  if (titles.length === 0) return null;
  const named = titles.slice(0, NAMED_SECTIONS).map((t) => `“${entryLine(clipGraphemes(t, NAMED_SECTION_CHARS))}”`);
  const more = titles.length > NAMED_SECTIONS ? ` and ${titles.length - NAMED_SECTIONS} more` : '';
  return `_Also in MEMORY.md, sections a person wrote: ${named.join(', ')}${more}._`;
}

/** One entry of memory_summary.md as the read path sees it (position = rank within the file). */
export interface SummaryEntry {
  id: string;
  kind: MemoryKind;
  text: string;
  /** The rendered line, exactly as in the file. */
  line: string;
}

/** Parses memory_summary.md (one bullet line per entry). Never throws. */
export function parseSummary(text: string): { info: HandbookInfo | null; entries: SummaryEntry[] } {
  const entries: SummaryEntry[] = [];
  let kind: MemoryKind | undefined;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    const h = /^##\s+(.+?)\s*$/.exec(line);
    if (h) {
      kind = kindOfHeading(h[1]!);
      continue;
    }
    const b = /^[-*]\s+(.*?)(?:\s*\[(m-[0-9a-f]{8})\])?\s*$/.exec(line);
    if (b && kind !== undefined && b[1]) entries.push({ id: b[2] ?? entryId(b[1]), kind, text: b[1], line });
  }
  return { info: parseHandbookInfo(text), entries };
}
