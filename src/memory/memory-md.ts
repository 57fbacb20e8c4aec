import { MemoryKindSchema, type MemoryKind } from './types.js';
import { entryId } from './normalize.js';
import { pushAll } from '../config/arrays.js';

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

/**
 * Text a person gave a structure of their own (issue 10 trial): a section under a heading that is not one of
 * mnemara's, or a fenced code block, numbered list, table or sub-heading inside one of mnemara's sections. It is
 * kept verbatim, line for line, where it was: entries are one-line bullets and cannot hold it.
 */
export interface HandBlock {
  /** The mnemara section it sat in or after (`null`: before the first one, under the title). */
  after: MemoryKind | null;
  /** It opens with a heading of its own, so it needs no mnemara section heading above it. */
  ownHeading: boolean;
  /** The lines as written (no trailing blank lines). */
  lines: string[];
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
export function entryLine(text: string): string {
  return defuseComments(text.replace(/\s+/g, ' ').trim());
}

const defuseComments = (t: string): string => t.replace(/<!--/g, '<!‐‐').replace(/-->/g, '‐‐>');

/** A fence's opening or closing line. */
const FENCE = /^\s*(`{3,}|~{3,})/;

/** Whether `line` closes a fence opened by `fence` (the same character, at least as many, nothing after). */
function closesFence(line: string, fence: string): boolean {
  const t = line.trim();
  return t.startsWith(fence) && !/[^`~]/.test(t) && t[0] === fence[0];
}

/**
 * An entry's text as MEMORY.md holds it: folded onto one line (`entryLine`), unless it holds a fenced block (a
 * bullet with a ```yaml block indented under it, trial 28 F8): then its lines are kept, each trimmed at the end,
 * blank lines only inside the fence, comment delimiters defused. memory_summary.md and the prompt use `entryLine`.
 */
export function entryText(text: string): string {
  if (!/\n/.test(text) || !text.split('\n').some((l) => FENCE.test(l))) return entryLine(text);
  let fence: string | null = null;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (fence === null && !/\S/.test(line)) continue;
    out.push(defuseComments(line.trimEnd()));
    if (f) fence = fence === null ? f[1]! : closesFence(line, fence) ? null : fence;
  }
  return out.join('\n').trim();
}

/** An entry as a MEMORY.md bullet: its further lines indented under it, the id comment on a line of its own then. */
function bullet(e: MemoryEntry): string {
  const lines = entryText(e.text).split('\n');
  if (lines.length === 1) return `- ${lines[0]} ${entryComment(e)}`;
  return [`- ${lines[0]}`, ...lines.slice(1).map((l) => (l ? `  ${l}` : '')), `  ${entryComment(e)}`].join('\n');
}

function entryComment(e: MemoryEntry): string {
  const parts = [`id:${e.id}`, `src:${e.sources.join(',')}`, `imp:${e.importance}`];
  if (e.at) parts.push(`at:${e.at}`);
  if (e.edited) parts.push('edited');
  return `<!-- ${parts.join(' ')} -->`;
}

export function headerComment(kind: 'memory' | 'summary', info: HandbookInfo): string {
  return `<!-- mnemara:${kind} format=${MEMORY_MD_FORMAT} consolidated=${info.consolidatedAt} producer=${info.producer} prompt=${info.promptVersion} -->`;
}

/**
 * Renders MEMORY.md from entries (already ranked: the order within a kind is kept) and a person's verbatim
 * blocks (each after the section it followed, after that section's bullets). Ends with a newline.
 */
export function renderMemoryMd(entries: MemoryEntry[], info: HandbookInfo, blocks: HandBlock[] = []): string {
  const out = [
    '# Memory',
    '',
    headerComment('memory', info),
    '> Lessons from earlier runs in this workspace, consolidated by mnemara. Edit or add entries freely (one',
    '> bullet each, under the right section): your text is kept. Delete a bullet to forget it for good.',
    '> Keep the `<!-- id:… -->` note at the end of an entry: it links the entry to the rollouts it came from.',
    '',
  ];
  // A hand-written block is as long as whoever wrote the file made it: not spread into push().
  const put = (b: HandBlock): void => void pushAll(out, b.lines).push('');
  for (const b of blocks) if (b.after === null) put(b);
  for (const kind of KIND_ORDER) {
    const of = entries.filter((e) => e.kind === kind);
    const inner = blocks.filter((b) => b.after === kind && !b.ownHeading);
    if (of.length > 0 || inner.length > 0) {
      out.push(`## ${SECTION_TITLES[kind]}`, '');
      for (const e of of) out.push(bullet(e));
      if (of.length) out.push('');
      inner.forEach(put);
    }
    for (const b of blocks) if (b.after === kind && b.ownHeading) put(b);
  }
  if (entries.length === 0 && blocks.length === 0) out.push('_No lessons yet._', '');
  return out.join('\n');
}

/** A numbered list item or a table row. */
const LIST_OR_TABLE = /^\s*(\d+[.)]\s+\S|\|.*\|\s*$)/;

/** mnemara's own section headings (and the kind names): a `## ` heading that is one of them holds entries. */
function isOwnSection(title: string): boolean {
  const t = title.trim().toLowerCase();
  return KIND_ORDER.some((k) => t.startsWith(SECTION_TITLES[k].toLowerCase().split(' ')[0]!) || t === k || t === k.replace('_', ' '));
}

export function kindOfHeading(title: string): MemoryKind {
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
 * Parses MEMORY.md (as mnemara wrote it or as a person edited it). Every `- ` bullet (and paragraph) under the
 * title or one of mnemara's `## ` sections is an entry; indented lines continue it. A bullet without an id
 * comment is a person's entry: its id is derived from its text, `sources` is empty and `edited` is true. A
 * person's own structure (other headings, fenced code, numbered lists, tables) comes back as `blocks`, kept
 * verbatim. Never throws.
 */
export function parseMemoryMd(text: string): { info: HandbookInfo | null; entries: MemoryEntry[]; blocks: HandBlock[] } {
  const entries: MemoryEntry[] = [];
  const blocks: HandBlock[] = [];
  let kind: MemoryKind | undefined;
  let current: string[] | undefined;
  let currentKind: MemoryKind = 'fact';
  // A bullet's indented lines belong to it, a fenced block among them whole, blank lines inside included (trial
  // 28 F8: the fence became a block of its own, moved to the end of MEMORY.md, and the bullet two entries).
  let currentIndent = 0;
  let currentFenced = false;
  let bulletFence: string | null = null;
  const underBullet = (line: string): string => line.replace(new RegExp(`^ {0,${currentIndent}}`), '');
  const flush = (): void => {
    if (!current) return;
    // A bullet holding a fenced block keeps its lines (`entryText`); other continuation lines fold into one.
    const raw = currentFenced ? current.join('\n').trim() : current.map((l) => l.trim()).join(' ').trim();
    current = undefined;
    currentFenced = false;
    bulletFence = null;
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
  // A person's text is kept wherever they put it (issue 9 trial): a bullet or a paragraph under the title or in
  // one of mnemara's sections is an entry of theirs (a fact, unless the section says otherwise). Structure of
  // their own (a heading that is not mnemara's, a fenced code block, a numbered list, a table) is a verbatim
  // block (issue 10 trial: it was flattened into one-line bullets). Only what mnemara writes itself is neither:
  // the title, its header comment, the `>` note, the "_No lessons yet._" line.
  let paragraph = false;
  let titled = false;
  let block: { b: HandBlock; level: number; fence: string | null } | undefined;
  const endBlock = (): void => {
    if (!block) return;
    while (block.b.lines.length && !/\S/.test(block.b.lines.at(-1)!)) block.b.lines.pop();
    if (block.b.lines.some((l) => /\S/.test(l))) blocks.push(block.b);
    block = undefined;
  };
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (current && bulletFence !== null) {
      current.push(underBullet(line));
      if (closesFence(line, bulletFence)) bulletFence = null;
      continue;
    }
    const heading = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (block) {
      if (block.fence !== null) {
        block.b.lines.push(line);
        if (line.trim().startsWith(block.fence) && !/\S/.test(line.trim().slice(block.fence.length))) {
          block.fence = null;
          if (block.level === 7) endBlock();
        }
        continue;
      }
      const fence = FENCE.exec(line);
      const goesOn = heading
        ? heading[1]!.length > block.level && !(heading[1]!.length === 2 && isOwnSection(heading[2]!))
        : block.level < 7 || LIST_OR_TABLE.test(line) || (/\S/.test(line) && /^\s/.test(line)) || (!/\S/.test(line) && LIST_OR_TABLE.test(lines[i + 1] ?? ''));
      if (goesOn) {
        if (fence) block.fence = fence[1]!;
        // mnemara's own marker is never a person's text, not even inside their section (it was kept and written again).
        if (!/^_No lessons yet\._\s*$/.test(line)) block.b.lines.push(line);
        continue;
      }
      endBlock();
    }
    if (heading) {
      const level = heading[1]!.length;
      if (level === 1 && !titled && kind === undefined && entries.length === 0 && blocks.length === 0) {
        titled = true;
        continue;
      }
      flush();
      paragraph = false;
      if (level === 2 && isOwnSection(heading[2]!)) {
        kind = kindOfHeading(heading[2]!);
        continue;
      }
      // A heading of the person's own opens a block that runs to the next heading at its level or above.
      block = { b: { after: kind ?? null, ownHeading: true, lines: [line] }, level, fence: null };
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence || LIST_OR_TABLE.test(line)) {
      if (!(current && /^\s+\S/.test(line))) {
        flush();
        paragraph = false;
        // Level 7: any heading ends it; a fence ends at its closing line, a list or table at a line that is not
        // one of its items (or indented under one).
        block = { b: { after: kind ?? null, ownHeading: false, lines: [line] }, level: 7, fence: fence ? fence[1]! : null };
        continue;
      }
    }
    const b = /^([-*+]\s+)(.*)$/.exec(line);
    if (b) {
      flush();
      current = [b[2]!];
      currentIndent = b[1]!.length;
      currentKind = kind ?? 'fact';
      paragraph = false;
    } else if (current && /^\s+\S/.test(line)) {
      current.push(underBullet(line));
      if (fence) {
        bulletFence = fence[1]!;
        currentFenced = true;
      }
    }
    else if (current && paragraph && /\S/.test(line) && !MNEMARA_LINE.test(line)) current.push(line.trim());
    else if (/\S/.test(line) && !MNEMARA_LINE.test(line)) {
      flush();
      current = [line.trim()];
      currentIndent = 0;
      currentKind = kind ?? 'fact';
      paragraph = true;
    } else {
      flush();
      paragraph = false;
    }
  }
  endBlock();
  flush();
  // A person may paste a line twice; the first one counts.
  const seen = new Set<string>();
  return { info: parseHandbookInfo(text), entries: entries.filter((e) => (seen.has(e.id) ? false : (seen.add(e.id), true))), blocks };
}
