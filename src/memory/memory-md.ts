import { MemoryKindSchema, type MemoryKind } from './types.js';
import { entryId } from './normalize.js';

/**
 * `memories/MEMORY.md`, the handbook (issue 5, "Formats"). People read and edit it; mnemara parses it back.
 *
 * ```
 * # Memory
 *
 * <!-- mnemara:memory format=1 consolidated=2026-11-29T17:40:00.000Z producer=deterministic prompt=phase2-v1 -->
 * > Lessons from earlier runs … (how to edit)
 *
 * ## Preferences (from the user)
 *
 * - Never hand-edit files under gen/; change proto/ and run `make gen`. <!-- id:m-1a2b3c4d src:R1,R2 imp:5 at:2026-11-29T10:00:00Z -->
 * ```
 *
 * One entry is one bullet line: the text, then an HTML comment (invisible when rendered) with the stable id,
 * the rollout ids it came from, its importance (1–5) and the time of its newest source; `edited` marks text a
 * person wrote or changed, which consolidation keeps as written. A bullet without a comment is an entry a
 * person added. The section an entry sits in is its kind, so moving a line moves the entry.
 */

export const MEMORY_MD_FORMAT = 1;

/** One entry of MEMORY.md. */
export interface MemoryEntry {
  /** `m-` + 8 hex digits; see `normalize.ts#entryId`. */
  id: string;
  kind: MemoryKind;
  /** One line of text (newlines are folded into spaces when rendered). */
  text: string;
  /** Rollout ids the entry came from; empty only for an entry a person wrote. */
  sources: string[];
  /** 1 (minor) … 5 (saves a run from failing). */
  importance: number;
  /** ISO 8601 UTC time of the newest source rollout ('' when unknown). */
  at: string;
  /** Text written or changed by a person: kept as is. */
  edited: boolean;
}

/** What the header comment of MEMORY.md and memory_summary.md records. */
export interface HandbookInfo {
  consolidatedAt: string;
  /** `deterministic` or `model:<name>`. */
  producer: string;
  /** Version of the phase 2 prompt (model path) or of the consolidation rules (deterministic path). */
  promptVersion: string;
}

/** Section titles by kind, in the order they are written: what the user said first. */
export const SECTION_TITLES: Record<MemoryKind, string> = {
  preference: 'Preferences (from the user)',
  pitfall: 'Pitfalls',
  procedure: 'Procedures',
  fact: 'Facts',
  task_state: 'Unfinished work',
};
export const KIND_ORDER: MemoryKind[] = ['preference', 'pitfall', 'procedure', 'fact', 'task_state'];

/** Folds text onto one line and defuses comment delimiters, so an entry cannot forge its own metadata. */
export function entryText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/<!--/g, '<!‐‐')
    .replace(/-->/g, '‐‐>')
    .trim();
}

function entryComment(e: MemoryEntry): string {
  const parts = [`id:${e.id}`, `src:${e.sources.join(',')}`, `imp:${e.importance}`];
  if (e.at) parts.push(`at:${e.at}`);
  if (e.edited) parts.push('edited');
  return `<!-- ${parts.join(' ')} -->`;
}

function headerComment(kind: 'memory' | 'summary', info: HandbookInfo): string {
  return `<!-- mnemara:${kind} format=${MEMORY_MD_FORMAT} consolidated=${info.consolidatedAt} producer=${info.producer} prompt=${info.promptVersion} -->`;
}

/** Renders MEMORY.md from entries (already ranked: the order within a kind is kept). */
export function renderMemoryMd(entries: MemoryEntry[], info: HandbookInfo): string {
  const out = [
    '# Memory',
    '',
    headerComment('memory', info),
    '> Lessons from earlier runs in this workspace, consolidated by mnemara. Edit or add entries freely (one',
    '> bullet each, under the right section): your text is kept. Delete a bullet to forget it for good.',
    '> Keep the `<!-- id:… -->` note at the end of an entry: it links the entry to the rollouts it came from.',
    '',
  ];
  for (const kind of KIND_ORDER) {
    const of = entries.filter((e) => e.kind === kind);
    if (of.length === 0) continue;
    out.push(`## ${SECTION_TITLES[kind]}`, '');
    for (const e of of) out.push(`- ${entryText(e.text)} ${entryComment(e)}`);
    out.push('');
  }
  if (entries.length === 0) out.push('_No lessons yet._', '');
  return out.join('\n');
}

function kindOfHeading(title: string): MemoryKind {
  const t = title.toLowerCase();
  for (const k of KIND_ORDER) if (t.startsWith(SECTION_TITLES[k].toLowerCase().split(' ')[0]!)) return k;
  const direct = MemoryKindSchema.safeParse(t.replace(/\s+/g, '_'));
  if (direct.success) return direct.data;
  if (/unfinished|todo|task/.test(t)) return 'task_state';
  return 'fact';
}

/** Lines mnemara writes into MEMORY.md itself (never a person's entry): its note, header comments, the empty marker. */
const MNEMARA_LINE = /^\s*(>|<!--|_No lessons yet\._\s*$)/;

const COMMENT_RE = /\s*<!--\s*(id:m-[0-9a-f]{8}\b[^]*?)-->\s*$/;

function parseComment(body: string): Partial<MemoryEntry> {
  const out: Partial<MemoryEntry> = {};
  for (const part of body.trim().split(/\s+/)) {
    const [k, ...rest] = part.split(':');
    const v = rest.join(':');
    if (k === 'id') out.id = v;
    else if (k === 'src') out.sources = v ? v.split(',').filter(Boolean) : [];
    else if (k === 'imp') {
      const n = Number(v);
      if (Number.isInteger(n) && n >= 1 && n <= 5) out.importance = n;
    } else if (k === 'at') out.at = v;
    else if (k === 'edited') out.edited = true;
  }
  return out;
}

/** Parses the header comment of MEMORY.md or memory_summary.md; `null` when absent. */
export function parseHandbookInfo(text: string): HandbookInfo | null {
  const m = /<!-- mnemara:(?:memory|summary) ([^\n]*?)-->/.exec(text);
  if (!m) return null;
  const kv = Object.fromEntries(m[1]!.trim().split(/\s+/).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  return { consolidatedAt: kv.consolidated ?? '', producer: kv.producer ?? '', promptVersion: kv.prompt ?? '' };
}

/**
 * Parses MEMORY.md (as mnemara wrote it or as a person edited it). Every `- ` bullet under a `## ` section is
 * an entry; indented lines continue it. A bullet without an id comment is a person's entry: its id is derived
 * from its text, `sources` is empty and `edited` is true. Never throws: text that is not an entry is ignored.
 */
export function parseMemoryMd(text: string): { info: HandbookInfo | null; entries: MemoryEntry[] } {
  const entries: MemoryEntry[] = [];
  let kind: MemoryKind | undefined;
  let current: string[] | undefined;
  let currentKind: MemoryKind = 'fact';
  const flush = (): void => {
    if (!current) return;
    const raw = current.join(' ').trim();
    current = undefined;
    const m = COMMENT_RE.exec(raw);
    const textPart = (m ? raw.slice(0, m.index) : raw).trim();
    if (!textPart) return;
    const meta = m ? parseComment(m[1]!) : {};
    entries.push({
      id: meta.id ?? entryId(textPart),
      kind: currentKind,
      text: textPart,
      sources: meta.sources ?? [],
      importance: meta.importance ?? 3,
      at: meta.at ?? '',
      edited: m ? meta.edited === true : true,
    });
  };
  // A person's text is kept wherever they put it (issue 9 trial): a bullet under the title or under a heading
  // of their own, and a paragraph without a bullet, are entries of theirs (a fact, unless the section says
  // otherwise). Only what mnemara writes itself is not: the title, its header comment, the `>` note, the
  // "_No lessons yet._" line.
  let paragraph = false;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    const h = /^##\s+(.+?)\s*$/.exec(line);
    if (h) {
      flush();
      kind = kindOfHeading(h[1]!);
      continue;
    }
    if (/^#\s/.test(line)) {
      flush();
      kind = undefined;
      continue;
    }
    const b = /^[-*+]\s+(.*)$/.exec(line);
    if (b) {
      flush();
      current = [b[1]!];
      currentKind = kind ?? 'fact';
      paragraph = false;
    } else if (current && /^\s+\S/.test(line)) current.push(line.trim());
    else if (current && paragraph && /\S/.test(line) && !MNEMARA_LINE.test(line)) current.push(line.trim());
    else if (/\S/.test(line) && !MNEMARA_LINE.test(line)) {
      flush();
      current = [line.trim()];
      currentKind = kind ?? 'fact';
      paragraph = true;
    } else {
      flush();
      paragraph = false;
    }
  }
  flush();
  // A person may paste a line twice; the first one counts.
  const seen = new Set<string>();
  return { info: parseHandbookInfo(text), entries: entries.filter((e) => (seen.has(e.id) ? false : (seen.add(e.id), true))) };
}

/**
 * Renders `memory_summary.md`: the few entries that matter most, by section, each ending with its id in
 * brackets (`[m-1a2b3c4d]`) so that a run can find the full entry and its sources in MEMORY.md.
 */
export function renderSummary(entries: MemoryEntry[], info: HandbookInfo): string {
  const out = ['# Memory summary', '', headerComment('summary', info), ''];
  for (const kind of KIND_ORDER) {
    const of = entries.filter((e) => e.kind === kind);
    if (of.length === 0) continue;
    out.push(`## ${SECTION_TITLES[kind]}`, '');
    for (const e of of) out.push(`- ${entryText(e.text)} [${e.id}]`);
    out.push('');
  }
  if (entries.length === 0) out.push('_No lessons yet._', '');
  return out.join('\n');
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
