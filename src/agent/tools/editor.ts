import { z } from 'zod';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import type { BetaToolTextEditor20250728 } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Sandbox } from '../../sandbox/types.js';
import { confine, virtualName, type VirtualRoot } from './confine.js';
import { listDir, numberLines, readText, writeTextAtomic } from './files.js';
import type { ToolOutput } from './types.js';
import { parseInput } from './input.js';
import { spliceAll } from '../../config/arrays.js';

/** The tool definition Claude knows: Anthropic's text editor, `text_editor_20250728`. */
export function editorDefinition(maxViewChars: number): BetaToolTextEditor20250728 {
  return { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: maxViewChars };
}

// The commands of text_editor_20250728 (no undo_edit in this version). `insert` takes `insert_text`;
// older clients sent `new_str`, which is accepted too.
const EditorInput = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('view'),
    path: z.string(),
    view_range: z.tuple([z.number().int(), z.number().int()]).optional(),
  }),
  z.object({ command: z.literal('create'), path: z.string(), file_text: z.string() }),
  z.object({ command: z.literal('str_replace'), path: z.string(), old_str: z.string(), new_str: z.string().optional() }),
  z.object({
    command: z.literal('insert'),
    path: z.string(),
    insert_line: z.number().int(),
    insert_text: z.string().optional(),
    new_str: z.string().optional(),
  }),
]);
type EditorInput = z.infer<typeof EditorInput>;

export interface EditorContext {
  sandbox: Sandbox;
  root: VirtualRoot;
  maxFileBytes: number;
  maxViewChars: number;
}

/** Runs one text editor command against the sandbox; bad input and refused paths throw `ToolError`. */
export async function runEditor(ctx: EditorContext, raw: unknown): Promise<ToolOutput> {
  const input = parseInput(EditorInput, raw, 'str_replace_based_edit_tool');
  switch (input.command) {
    case 'view':
      return view(ctx, input);
    case 'create':
      return create(ctx, input);
    case 'str_replace':
      return strReplace(ctx, input);
    case 'insert':
      return insert(ctx, input);
  }
}

async function view(ctx: EditorContext, input: Extract<EditorInput, { command: 'view' }>): Promise<ToolOutput> {
  const c = await confine(ctx.sandbox, ctx.root, input.path);
  const shown = virtualName(ctx.root, c);
  if (c.kind === 'none') throw new ToolError(`The path ${shown} does not exist`);
  if (c.kind === 'other') throw new ToolError(`The path ${shown} is not a regular file or directory`);
  if (c.kind === 'dir') {
    if (input.view_range) throw new ToolError('view_range applies to files, not directories');
    const entries = await listDir(ctx.sandbox, c.real, 2);
    const lines = entries.map((e) => `${shown}/${e.rel}${e.type === 'd' ? '/' : ''}`);
    return {
      text: `Here are the files and directories up to 2 levels deep in ${shown}, excluding hidden items and node_modules:\n${[shown, ...lines].join('\n')}`,
    };
  }
  const text = await readText(ctx.sandbox, c.real, shown, ctx.maxFileBytes);
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  let first = 1;
  let slice = lines;
  if (input.view_range) {
    const [start, end] = input.view_range;
    if (start < 1 || start > Math.max(lines.length, 1)) {
      throw new ToolError(`Invalid view_range [${start}, ${end}]: the first line must be within [1, ${lines.length}]`);
    }
    if (end !== -1 && (end < start || end > lines.length)) {
      throw new ToolError(`Invalid view_range [${start}, ${end}]: the last line must be -1 or within [${start}, ${lines.length}]`);
    }
    first = start;
    slice = lines.slice(start - 1, end === -1 ? undefined : end);
  }
  let body = numberLines(slice, first);
  if (body.length > ctx.maxViewChars) {
    body = `${body.slice(0, ctx.maxViewChars)}\n[… cut at ${ctx.maxViewChars} characters; the file has ${lines.length} lines — pass view_range to see the rest]`;
  }
  return { text: `Here's the content of ${shown} with line numbers:\n${body}` };
}

async function create(ctx: EditorContext, input: Extract<EditorInput, { command: 'create' }>): Promise<ToolOutput> {
  const c = await confine(ctx.sandbox, ctx.root, input.path);
  const shown = virtualName(ctx.root, c);
  if (c.kind !== 'none') {
    throw new ToolError(`File already exists at ${shown}; create does not overwrite — use str_replace or insert to change it`);
  }
  await writeTextAtomic(ctx.sandbox, c.real, shown, input.file_text, ctx.maxFileBytes);
  return { text: `File created successfully at: ${shown}` };
}

async function loadFile(ctx: EditorContext, path: string): Promise<{ real: string; shown: string; text: string }> {
  const c = await confine(ctx.sandbox, ctx.root, path);
  const shown = virtualName(ctx.root, c);
  if (c.kind === 'none') throw new ToolError(`The path ${shown} does not exist`);
  if (c.kind !== 'file') throw new ToolError(`The path ${shown} is not a regular file`);
  return { real: c.real, shown, text: await readText(ctx.sandbox, c.real, shown, ctx.maxFileBytes) };
}

function snippet(text: string, aroundLine: number, extraLines: number): string {
  const lines = text.split('\n');
  const start = Math.max(0, aroundLine - 1 - 4);
  const end = Math.min(lines.length, aroundLine - 1 + extraLines + 4);
  return numberLines(lines.slice(start, end), start + 1);
}

async function strReplace(ctx: EditorContext, input: Extract<EditorInput, { command: 'str_replace' }>): Promise<ToolOutput> {
  if (input.old_str === '') throw new ToolError('old_str must not be empty');
  const f = await loadFile(ctx, input.path);
  const at: number[] = [];
  for (let i = f.text.indexOf(input.old_str); i !== -1; i = f.text.indexOf(input.old_str, i + 1)) at.push(i);
  const lineOf = (offset: number): number => f.text.slice(0, offset).split('\n').length;
  if (at.length === 0) {
    throw new ToolError(`No replacement was performed: old_str did not appear verbatim in ${f.shown} (0 matches)`);
  }
  if (at.length > 1) {
    throw new ToolError(
      `No replacement was performed: old_str appears ${at.length} times in ${f.shown} (lines ${at.map(lineOf).join(', ')}); include more context so that it matches exactly once`,
    );
  }
  const newStr = input.new_str ?? '';
  const offset = at[0]!;
  const next = f.text.slice(0, offset) + newStr + f.text.slice(offset + input.old_str.length);
  await writeTextAtomic(ctx.sandbox, f.real, f.shown, next, ctx.maxFileBytes);
  const line = lineOf(offset);
  return {
    text: `The file ${f.shown} has been edited. Here's a snippet of it with line numbers:\n${snippet(next, line, newStr.split('\n').length)}\nReview the changes and make sure they are as expected.`,
  };
}

async function insert(ctx: EditorContext, input: Extract<EditorInput, { command: 'insert' }>): Promise<ToolOutput> {
  const insertText = input.insert_text ?? input.new_str;
  if (insertText === undefined) throw new ToolError('insert needs insert_text');
  const f = await loadFile(ctx, input.path);
  const lines = f.text.split('\n');
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  if (input.insert_line < 0 || input.insert_line > lines.length) {
    throw new ToolError(`Invalid insert_line ${input.insert_line}: it must be within [0, ${lines.length}] for ${f.shown}`);
  }
  const added = insertText.replace(/\n$/, '').split('\n');
  spliceAll(lines, input.insert_line, 0, added);
  const next = lines.join('\n') + (trailingNewline ? '\n' : '');
  await writeTextAtomic(ctx.sandbox, f.real, f.shown, next, ctx.maxFileBytes);
  return {
    text: `The file ${f.shown} has been edited. Here's a snippet of it with line numbers:\n${snippet(next, input.insert_line + 1, added.length)}\nReview the changes and make sure they are as expected.`,
  };
}
