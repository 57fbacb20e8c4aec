import type { ExecOptions } from './types.js';
import { SandboxError } from './errors.js';

function invalid(option: string, value: unknown, want: string): SandboxError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new SandboxError('INVALID_INPUT', `exec: ${option} must be ${want}, got ${shown} (${typeof value})`, {
    hint: `pass ${option} as ${want}, or leave it out for the default`,
  });
}

/**
 * Checks a command and its `ExecOptions` before anything runs; throws `SandboxError('INVALID_INPUT')` naming the
 * option, the value and its type. Same rules for every backend.
 */
export function validateExec(command: string | string[], options: ExecOptions): void {
  if (typeof command === 'string') {
    if (command.includes('\0')) throw invalid('command', command, 'a string without NUL bytes');
  } else if (!Array.isArray(command) || command.length === 0 || !command.every((a) => typeof a === 'string' && !a.includes('\0'))) {
    throw invalid('command', command, 'a string, or a non-empty array of strings without NUL bytes');
  }
  const { timeoutMs, maxOutputBytes, env, stdin, cwd } = options;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw invalid('timeoutMs', timeoutMs, 'a positive number of milliseconds');
  }
  if (maxOutputBytes !== undefined && !(Number.isInteger(maxOutputBytes) && maxOutputBytes >= 2)) {
    throw invalid('maxOutputBytes', maxOutputBytes, 'a whole number of bytes, at least 2');
  }
  if (cwd !== undefined && typeof cwd !== 'string') throw invalid('cwd', cwd, 'a path string');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw invalid('signal', options.signal, 'an AbortSignal');
  if (stdin !== undefined && typeof stdin !== 'string' && !Buffer.isBuffer(stdin)) {
    throw invalid('stdin', stdin, 'a string or a Buffer');
  }
  for (const [key, value] of Object.entries(env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw invalid(`env key`, key, 'a variable name ([A-Za-z_][A-Za-z0-9_]*)');
    if (typeof value !== 'string' || value.includes('\0')) throw invalid(`env.${key}`, value, 'a string without NUL bytes');
  }
}
