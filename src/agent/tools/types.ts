import type { ExecResult } from '../../sandbox/types.js';

/**
 * What one sandbox tool call produced: the text the model is shown, whether it is an error result, and for
 * commands the sandbox's `ExecResult` (exit code, duration, timeout, truncation) for the transcript.
 */
export interface ToolOutput {
  text: string;
  isError?: boolean;
  exec?: ExecResult;
}

/** Limits of the tools (bytes, ms); unset = the sandbox's own defaults where one exists. */
export interface ToolLimits {
  /** Wall-clock limit of one bash command (ms); default the sandbox's. */
  execTimeoutMs?: number;
  /** Cap on stdout and on stderr of one bash command (bytes); default the sandbox's. */
  maxOutputBytes?: number;
  /** Largest file the editor reads or writes (bytes). Default 2 MiB. */
  maxEditFileBytes?: number;
  /** Most characters one `view` shows before it asks for a `view_range`. Default 100 000. */
  maxViewChars?: number;
  /** Largest memory file the memory tool writes (bytes). Default 128 KiB. */
  maxMemoryFileBytes?: number;
}

export const DEFAULT_TOOL_LIMITS = {
  maxEditFileBytes: 2 * 1024 * 1024,
  maxViewChars: 100_000,
  maxMemoryFileBytes: 128 * 1024,
} as const;
