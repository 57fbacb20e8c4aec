/**
 * Claude Code's tools onto the tools mnemara's own runs use (Anthropic's `bash` and text editor tool), so that
 * phase 1 reads an imported session exactly like one of ours: `Bash {command}` → `bash {command}`;
 * `Edit`/`MultiEdit {file_path, …}` → `str_replace_based_edit_tool {command: 'str_replace', path, …}`;
 * `Write` → `create`; `Read` → `view`. Other tools (Grep, Glob, WebFetch, Task …) keep their name and input.
 */
export function mapClaudeCodeTool(name: string, input: unknown): { name: string; input: unknown } {
  const i = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const path = typeof i.file_path === 'string' ? i.file_path : undefined;
  switch (name) {
    case 'Bash':
      return { name: 'bash', input: { command: typeof i.command === 'string' ? i.command : '' } };
    case 'Edit':
      return path ? { name: EDITOR, input: { command: 'str_replace', path, old_str: i.old_string, new_str: i.new_string } } : { name, input };
    case 'MultiEdit':
      return path ? { name: EDITOR, input: { command: 'str_replace', path, edits: i.edits } } : { name, input };
    case 'Write':
      return path ? { name: EDITOR, input: { command: 'create', path, file_text: i.content } } : { name, input };
    case 'Read':
      return path ? { name: EDITOR, input: { command: 'view', path } } : { name, input };
    default:
      return { name, input };
  }
}

const EDITOR = 'str_replace_based_edit_tool';

/** Claude Code reports a failed command's status as a line `Exit code N` in the result; 0 when it succeeded. */
export function claudeCodeExitCode(output: string, isError: boolean): number | undefined {
  const m = /^Exit code (-?\d+)\s*$/m.exec(output);
  if (m) return Number(m[1]);
  return isError ? undefined : 0;
}
