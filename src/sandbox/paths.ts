import { posix } from 'node:path';
import { SandboxError } from './errors.js';

/**
 * Resolves a sandbox path against the workspace: absolute paths stay, relative ones join `workspaceDir`;
 * the result is normalised (no `.`/`..` segments). Throws `INVALID_INPUT` for an empty path or one holding NUL.
 */
export function resolveSandboxPath(workspaceDir: string, path: string): string {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
    throw new SandboxError('INVALID_INPUT', `invalid sandbox path ${JSON.stringify(path)}`, {
      hint: 'pass a non-empty path, absolute or relative to the workspace',
    });
  }
  return posix.resolve(workspaceDir, path);
}
