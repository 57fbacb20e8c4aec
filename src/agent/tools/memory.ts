import { posix } from 'node:path';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { betaMemoryTool, type MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import type { Sandbox } from '../../sandbox/types.js';
import { confine, confineEntry, virtualName, type Confined, type VirtualRoot } from './confine.js';
import { listDir, numberLines, readText, writeTextAtomic } from './files.js';
import { parseInput } from './input.js';
import { z } from 'zod';

// The commands of memory_20250818, checked before dispatch: the SDK's betaMemoryTool only casts its input.
const MemoryInput = z.discriminatedUnion('command', [
  z.object({ command: z.literal('view'), path: z.string(), view_range: z.tuple([z.number().int(), z.number().int()]).optional() }),
  z.object({ command: z.literal('create'), path: z.string(), file_text: z.string() }),
  z.object({ command: z.literal('str_replace'), path: z.string(), old_str: z.string(), new_str: z.string() }),
  z.object({ command: z.literal('insert'), path: z.string(), insert_line: z.number().int(), insert_text: z.string() }),
  z.object({ command: z.literal('delete'), path: z.string() }),
  z.object({ command: z.literal('rename'), old_path: z.string(), new_path: z.string() }),
]);

/** Validates a memory tool input from the model; a mismatch throws `ToolError` naming the fields. */
export function parseMemoryInput(raw: unknown): z.infer<typeof MemoryInput> {
  return parseInput(MemoryInput, raw, 'memory');
}

export interface MemoryToolContext {
  sandbox: Sandbox;
  /** `/memories` → the memory layout's memories folder inside the workspace. */
  root: VirtualRoot;
  /** Largest memory file (bytes) a write may produce. */
  maxFileBytes: number;
}

const VIRTUAL = '/memories';

// The memory tool's paths must name /memories itself or something under it; `/memoriesX` and relative
// paths are refused before anything else happens.
async function resolve(ctx: MemoryToolContext, p: unknown): Promise<Confined & { shown: string }> {
  if (typeof p !== 'string' || (p !== VIRTUAL && !p.startsWith(`${VIRTUAL}/`))) {
    throw new ToolError(`Memory paths must start with ${VIRTUAL}/, got: ${String(p)}`);
  }
  const c = await confine(ctx.sandbox, ctx.root, p);
  return { ...c, shown: virtualName(ctx.root, c) };
}

// For delete and the source of a rename: a symlink named by the path is acted on itself, not followed.
async function resolveEntry(ctx: MemoryToolContext, p: unknown): Promise<Confined & { shown: string }> {
  if (typeof p !== 'string' || (p !== VIRTUAL && !p.startsWith(`${VIRTUAL}/`))) {
    throw new ToolError(`Memory paths must start with ${VIRTUAL}/, got: ${String(p)}`);
  }
  const c = await confineEntry(ctx.sandbox, ctx.root, p);
  return { ...c, shown: virtualName(ctx.root, c) };
}

async function existingFile(ctx: MemoryToolContext, p: string): Promise<{ real: string; shown: string; text: string }> {
  const c = await resolve(ctx, p);
  if (c.kind === 'none') throw new ToolError(`The path ${c.shown} does not exist`);
  if (c.kind !== 'file') throw new ToolError(`The path ${c.shown} is not a file`);
  return { real: c.real, shown: c.shown, text: await readText(ctx.sandbox, c.real, c.shown, ctx.maxFileBytes) };
}

async function mustRun(ctx: MemoryToolContext, argv: string[], what: string): Promise<void> {
  const r = await ctx.sandbox.exec(argv, { timeoutMs: 15_000 });
  if (r.exitCode !== 0) throw new ToolError(`${what} failed: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
}

/**
 * Handlers of Anthropic's memory tool (`memory_20250818`) over a sandbox: every path is confined to the
 * memories folder (lexically, against percent-encoded `..`, and through symlinks), writes are atomic
 * (temp file + rename) and capped per file. Output follows the SDK's own local-filesystem implementation.
 */
export function memoryHandlers(ctx: MemoryToolContext): MemoryToolHandlers {
  return {
    async view(cmd) {
      const c = await resolve(ctx, cmd.path);
      if (c.kind === 'none') {
        if (c.real === c.root) return `${VIRTUAL} is empty.`;
        throw new ToolError(`The path ${c.shown} does not exist`);
      }
      if (c.kind === 'dir') {
        const entries = (await listDir(ctx.sandbox, c.real, 2)).filter((e) => e.type === 'f' || e.type === 'd');
        const lines = entries.map((e) => `${e.size}\t${c.shown}/${e.rel}${e.type === 'd' ? '/' : ''}`);
        return `Here're the files and directories up to 2 levels deep in ${c.shown}, excluding hidden items and node_modules:\n${lines.join('\n') || '(empty)'}`;
      }
      if (c.kind !== 'file') throw new ToolError(`The path ${c.shown} is not a regular file or directory`);
      const text = await readText(ctx.sandbox, c.real, c.shown, ctx.maxFileBytes);
      const lines = text.split('\n');
      let first = 1;
      let slice = lines;
      if (cmd.view_range && cmd.view_range.length === 2) {
        first = Math.max(1, cmd.view_range[0]!);
        const end = cmd.view_range[1] === -1 ? lines.length : cmd.view_range[1];
        slice = lines.slice(first - 1, end);
      }
      return `Here's the content of ${c.shown} with line numbers:\n${numberLines(slice, first)}`;
    },

    async create(cmd) {
      const c = await resolve(ctx, cmd.path);
      if (c.kind === 'dir' || c.kind === 'other') throw new ToolError(`The path ${c.shown} is not a file`);
      await writeTextAtomic(ctx.sandbox, c.real, c.shown, cmd.file_text, ctx.maxFileBytes);
      return `File created successfully at: ${c.shown}`;
    },

    async str_replace(cmd) {
      const f = await existingFile(ctx, cmd.path);
      if (cmd.old_str === '') throw new ToolError('old_str must not be empty');
      const count = f.text.split(cmd.old_str).length - 1;
      if (count !== 1) {
        throw new ToolError(
          count === 0
            ? `No replacement was performed, old_str did not appear verbatim in ${f.shown}.`
            : `No replacement was performed: old_str appears ${count} times in ${f.shown}; make it unique.`,
        );
      }
      const next = f.text.replace(cmd.old_str, () => cmd.new_str);
      await writeTextAtomic(ctx.sandbox, f.real, f.shown, next, ctx.maxFileBytes);
      return `The memory file has been edited.`;
    },

    async insert(cmd) {
      const f = await existingFile(ctx, cmd.path);
      const lines = f.text.split('\n');
      if (cmd.insert_line < 0 || cmd.insert_line > lines.length) {
        throw new ToolError(`Invalid insert_line ${cmd.insert_line}: it must be within [0, ${lines.length}]`);
      }
      lines.splice(cmd.insert_line, 0, cmd.insert_text.replace(/\n$/, ''));
      await writeTextAtomic(ctx.sandbox, f.real, f.shown, lines.join('\n'), ctx.maxFileBytes);
      return `The file ${f.shown} has been edited.`;
    },

    async delete(cmd) {
      const c = await resolveEntry(ctx, cmd.path);
      if (c.real === c.root) throw new ToolError(`Cannot delete the ${VIRTUAL} directory itself`);
      if (c.kind === 'none') throw new ToolError(`The path ${c.shown} does not exist`);
      await mustRun(ctx, ['rm', '-rf', '--', c.real], `Deleting ${c.shown}`);
      return `Successfully deleted ${c.shown}`;
    },

    async rename(cmd) {
      const from = await resolveEntry(ctx, cmd.old_path);
      const to = await resolve(ctx, cmd.new_path);
      if (from.real === from.root || to.real === to.root) throw new ToolError(`Cannot rename the ${VIRTUAL} directory itself`);
      if (from.kind === 'none') throw new ToolError(`The path ${from.shown} does not exist`);
      if (to.kind !== 'none') throw new ToolError(`The destination ${to.shown} already exists`);
      await mustRun(ctx, ['mkdir', '-p', '--', posix.dirname(to.real)], `Creating ${posix.dirname(to.shown)}`);
      await mustRun(ctx, ['mv', '-T', '--', from.real, to.real], `Renaming ${from.shown}`);
      return `Successfully renamed ${from.shown} to ${to.shown}`;
    },
  };
}

/** The memory tool as the SDK builds it (`betaMemoryTool`), with our sandbox-bound handlers. */
export function sandboxMemoryTool(ctx: MemoryToolContext): BetaRunnableTool {
  const tool = betaMemoryTool(memoryHandlers(ctx));
  return { ...tool, parse: parseMemoryInput } as BetaRunnableTool;
}
