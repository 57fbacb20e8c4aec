/** mnemara's editor tool (Anthropic's text editor tool): phase 1 reads `{command, path}` of its calls as edits. */
export const EDITOR = 'str_replace_based_edit_tool';

/**
 * A patch in the `*** Begin Patch` form (Codex `apply_patch`) or a unified diff onto one editor call per the
 * first file it touches (`create` for an added file, else `str_replace`), the patch kept whole in the input;
 * undefined when no file is named.
 */
export function codeEdit(patch: string): { name: string; input: unknown } | undefined {
  const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/m.exec(patch) ?? /^\+\+\+ (?:b\/)?(.+)$/m.exec(patch);
  if (!m) return undefined;
  const add = m.length === 3 && m[1] === 'Add';
  const path = (m.length === 3 ? m[2] : m[1])!.trim();
  return { name: EDITOR, input: { command: add ? 'create' : 'str_replace', path, patch } };
}
