import { num, obj } from './types.js';

/**
 * A shell tool's result that is itself JSON text: `{"output": "...", "metadata": {"exit_code": 2, "duration_seconds":
 * 1.0}}` (Codex's `shell` tool, also when its calls are replayed as Agents SDK `function_call_output` items), or the
 * exit code at the top level (`{"output": "...", "exit_code": 2}`, `exitCode`). Only a whole string that parses as one
 * object with a string `output` counts: text that merely starts with `{`, or JSON of another shape, is left as it is
 * (undefined). `exitCode` is absent when the object names none, or names one that is not an integer.
 */
export function wrappedOutput(text: string): { output: string; exitCode?: number } | undefined {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return undefined;
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = obj(JSON.parse(t));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed.output !== 'string') return undefined;
  const meta = obj(parsed.metadata);
  const code = [meta?.exit_code, meta?.exitCode, parsed.exit_code, parsed.exitCode].map(num).find((c) => c !== undefined);
  return { output: parsed.output, ...(code !== undefined && Number.isInteger(code) ? { exitCode: code } : {}) };
}
