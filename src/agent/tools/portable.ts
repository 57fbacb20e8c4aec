/**
 * The run's tools as plain JSON-schema tools (`name`, `description`, `input_schema`), for endpoints that do
 * not know Anthropic's typed tools (`bash_20250124`, `text_editor_20250728`, `memory_20250818`, which carry no
 * schema: an Anthropic-compatible local server such as llama.cpp's turns them into tools without parameters).
 * Same names, same inputs, same behaviour: the implementations in bash.ts, editor.ts and memory.ts run either
 * way. The inputs follow the typed tools' documented parameters.
 */
import type { BetaTool } from '@anthropic-ai/sdk/resources/beta/messages/messages';

/** `anthropic`: the typed tools Claude is trained on. `portable`: JSON-schema tools any endpoint can offer. */
export type ToolStyle = 'anthropic' | 'portable';

const path = (what: string) => ({ type: 'string', description: what });

export const portableBash: BetaTool = {
  name: 'bash',
  description:
    'Run a shell command in the workspace (bash, in a sandbox). The working directory carries over from one call ' +
    'to the next; other shell state does not. Returns stdout and stderr and the exit code.',
  input_schema: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The command to run, e.g. `ls -la` or `./scripts/check.sh`.' },
      restart: { type: 'boolean', description: 'Start a fresh shell instead of running a command (then leave out command).' },
    },
    required: ['command'],
  },
};

export function portableEditor(maxViewChars: number): BetaTool {
  return {
    name: 'str_replace_based_edit_tool',
    description:
      'View, create and edit files under /workspace. view shows a file with line numbers (or a folder listing); ' +
      `create writes a new file; str_replace replaces one exact, unique occurrence of old_str; insert adds text after a line. Views longer than ${maxViewChars} characters need view_range.`,
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert'], description: 'What to do.' },
        path: path('Absolute path under /workspace, e.g. /workspace/src/main.py.'),
        view_range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: 'view: [first line, last line] (1-based; -1 = to the end).' },
        file_text: { type: 'string', description: 'create: the whole content of the new file.' },
        old_str: { type: 'string', description: 'str_replace: the exact text to replace (must occur once).' },
        new_str: { type: 'string', description: 'str_replace: the replacement text.' },
        insert_line: { type: 'integer', description: 'insert: the line after which to insert (0 = at the top).' },
        insert_text: { type: 'string', description: 'insert: the text to insert.' },
      },
      required: ['command', 'path'],
    },
  };
}

export const portableMemory: BetaTool = {
  name: 'memory',
  description:
    'Read and write your memory files under /memories (they persist to later runs). Commands: view, create, ' +
    'str_replace, insert, delete, rename.',
  input_schema: {
    type: 'object',
    properties: {
      command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'], description: 'What to do.' },
      path: path('Path under /memories, e.g. /memories/notes.md (all commands but rename).'),
      view_range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: 'view: [first line, last line].' },
      file_text: { type: 'string', description: 'create: the content of the file.' },
      old_str: { type: 'string', description: 'str_replace: the exact text to replace (must occur once).' },
      new_str: { type: 'string', description: 'str_replace: the replacement text.' },
      insert_line: { type: 'integer', description: 'insert: the line after which to insert.' },
      insert_text: { type: 'string', description: 'insert: the text to insert.' },
      old_path: path('rename: the current path under /memories.'),
      new_path: path('rename: the new path under /memories.'),
    },
    required: ['command'],
  },
};

/**
 * The tool style a run uses: the configured one, or with `auto`, Anthropic's typed tools for the Anthropic API
 * (`*.anthropic.com`, or no base URL) and portable tools for any other endpoint (a gateway, a local server).
 * A gateway that forwards to Claude may set `agent.tools = anthropic`.
 */
export function toolStyleFor(setting: 'auto' | ToolStyle, baseUrl: string | undefined): ToolStyle {
  if (setting !== 'auto') return setting;
  if (!baseUrl) return 'anthropic';
  try {
    const host = new URL(baseUrl).hostname.toLowerCase();
    return host === 'anthropic.com' || host.endsWith('.anthropic.com') ? 'anthropic' : 'portable';
  } catch {
    return 'portable';
  }
}
