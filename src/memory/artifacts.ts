import { MnemaraError } from '../config/errors.js';
import { parseFrontMatter, renderFrontMatter } from './front-matter.js';
import {
  ArtifactFrontMatterSchema,
  RawMemorySchema,
  RolloutSummarySchema,
  type ArtifactFrontMatter,
  type RawMemory,
  type RolloutSummary,
} from './types.js';

/**
 * Phase 1's two files per rollout (issue 5, "Formats"):
 *
 * `rollout_summaries/<id>.md` — front matter, then `## Task`, `## Tried`, `## Worked`, `## Outcome`,
 * `## Files changed` (lists as `- item`; a continuation line of an item is indented by two spaces).
 *
 * `raw_memories/<id>.md` — front matter, then one section per raw memory: a `### <n>. <kind> · importance <i>`
 * heading, the text as a `> ` quote for people, and a fenced ```json block holding the whole RawMemory.
 * The JSON block is authoritative (the parser reads only it), so the file round-trips RawMemory objects
 * exactly; the quote is there to be read. Hand edits belong in MEMORY.md, not here.
 *
 * Content lines that could pass for structure (`## …`, a fence) are escaped with a leading backslash,
 * so text from a hostile transcript cannot forge sections.
 */

const FRONT_KEYS: Array<keyof ArtifactFrontMatter> = ['rolloutId', 'time', 'outcome', 'source', 'producer', 'promptVersion'];

function frontFields(meta: ArtifactFrontMatter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of FRONT_KEYS) out[k] = meta[k];
  return out;
}

function parseMeta(file: string, text: string): { meta: ArtifactFrontMatter; body: string } {
  const fm = parseFrontMatter(text);
  if (!fm) throw invalid(file, 'it does not start with a front matter block (--- … ---)');
  const meta = ArtifactFrontMatterSchema.safeParse(fm.fields);
  if (!meta.success) throw invalid(file, `its front matter is incomplete: ${meta.error.issues.map((i) => i.path.join('.') + ' ' + i.message).join('; ')}`);
  return { meta: meta.data, body: fm.body };
}

function invalid(file: string, why: string): MnemaraError {
  return new MnemaraError('INVALID_INPUT', `${file}: ${why}`, {
    hint: 'Delete the file (and its entry in memories/.state.json) so that the rollout is extracted again.',
  });
}

/** Escapes a content line that starts like a heading or a fence (or is already escaped). */
function escapeLine(line: string): string {
  return /^\\*(#|```)/.test(line) ? `\\${line}` : line;
}
function unescapeLine(line: string): string {
  return /^\\+(#|```)/.test(line) ? line.slice(1) : line;
}

function paragraph(text: string): string {
  return text.split('\n').map(escapeLine).join('\n');
}

function list(items: string[]): string {
  if (items.length === 0) return '_none_';
  return items.map((i) => `- ${i.split('\n').map((l, n) => (n === 0 ? escapeLine(l) : `  ${l}`)).join('\n')}`).join('\n');
}

const SECTIONS = ['Task', 'Tried', 'Worked', 'Outcome', 'Files changed'] as const;

/** Renders `rollout_summaries/<id>.md`. Pure; redaction is the writer's job. */
export function renderRolloutSummary(meta: ArtifactFrontMatter, summary: RolloutSummary): string {
  const body = [
    `# Rollout ${meta.rolloutId}`,
    '',
    '## Task',
    '',
    paragraph(summary.task),
    '',
    '## Tried',
    '',
    list(summary.tried),
    '',
    '## Worked',
    '',
    list(summary.worked),
    '',
    '## Outcome',
    '',
    paragraph(summary.outcome),
    '',
    '## Files changed',
    '',
    list(summary.filesChanged),
    '',
  ].join('\n');
  return renderFrontMatter(frontFields(meta), body);
}

function splitSections(body: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of body.split('\n')) {
    const h = /^## (.+)$/.exec(line);
    if (h && (SECTIONS as readonly string[]).includes(h[1]!)) {
      current = [];
      sections.set(h[1]!, current);
    } else if (current) current.push(line);
  }
  return sections;
}

function readParagraph(lines: string[] | undefined): string {
  if (!lines) return '';
  const trimmed = [...lines];
  // The renderer puts exactly one blank line after a heading and one before the next.
  if (trimmed[0] === '') trimmed.shift();
  if (trimmed.at(-1) === '') trimmed.pop();
  return trimmed.map(unescapeLine).join('\n');
}

function readList(lines: string[] | undefined): string[] {
  const text = readParagraph(lines);
  if (text === '_none_' || text === '') return [];
  const items: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('- ')) items.push(unescapeLine(line.slice(2)));
    else if (line.startsWith('  ') && items.length > 0) items[items.length - 1] += `\n${line.slice(2)}`;
    else if (line.trim()) items.push(line.trim()); // a hand-written line without a dash
  }
  return items;
}

/** Parses `rollout_summaries/<id>.md`; throws `MnemaraError('INVALID_INPUT')` naming `file` when it is not one. */
export function parseRolloutSummary(text: string, file = 'rollout summary'): { meta: ArtifactFrontMatter; summary: RolloutSummary } {
  const { meta, body } = parseMeta(file, text);
  const s = splitSections(body);
  const summary = RolloutSummarySchema.parse({
    task: readParagraph(s.get('Task')),
    tried: readList(s.get('Tried')),
    worked: readList(s.get('Worked')),
    outcome: readParagraph(s.get('Outcome')),
    filesChanged: readList(s.get('Files changed')),
  });
  return { meta, summary };
}

/** Renders `raw_memories/<id>.md`. Pure; redaction is the writer's job. */
export function renderRawMemories(meta: ArtifactFrontMatter, memories: RawMemory[]): string {
  const parts = [`# Raw memories of rollout ${meta.rolloutId}`, ''];
  if (memories.length === 0) parts.push('Nothing worth keeping from this rollout.', '');
  memories.forEach((m, i) => {
    parts.push(
      `### ${i + 1}. ${m.kind} · importance ${m.importance}`,
      '',
      m.text.split('\n').map((l) => `> ${l}`).join('\n'),
      '',
      '```json',
      JSON.stringify(m, null, 2),
      '```',
      '',
    );
  });
  return renderFrontMatter(frontFields(meta), parts.join('\n'));
}

/** Parses `raw_memories/<id>.md`: the JSON blocks, each validated. Throws `MnemaraError('INVALID_INPUT')`. */
export function parseRawMemories(text: string, file = 'raw memories'): { meta: ArtifactFrontMatter; memories: RawMemory[] } {
  const { meta, body } = parseMeta(file, text);
  const memories: RawMemory[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```json') continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw invalid(file, `the JSON block at body line ${i + 1} is not closed`);
    let value: unknown;
    try {
      value = JSON.parse(lines.slice(i + 1, end).join('\n'));
    } catch (err) {
      throw invalid(file, `the JSON block at body line ${i + 1} is not valid JSON (${(err as Error).message})`);
    }
    const parsed = RawMemorySchema.safeParse(value);
    if (!parsed.success) throw invalid(file, `raw memory ${memories.length + 1} is invalid: ${parsed.error.issues.map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`);
    memories.push(parsed.data);
    i = end;
  }
  return { meta, memories };
}
