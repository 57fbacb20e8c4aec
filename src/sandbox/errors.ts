import { MnemaraError } from '../config/errors.js';

/**
 * Codes a sandbox throws with: the file-level ones (`ENOENT`, `EISDIR`, `NOT_REGULAR`, `TOO_LARGE`) from `readFile`/`writeFile`,
 * `INVALID_INPUT` for bad paths or options, `DOCKER_UNAVAILABLE` when no engine answers, `IMAGE_MISSING` when the
 * sandbox image was not built, `SANDBOX_CLOSED` after `close()`, `SANDBOX_FAILED` for anything else the engine refused.
 */
export type SandboxErrorCode =
  | 'ENOENT'
  | 'DISK_FULL'
  | 'EISDIR'
  | 'NOT_REGULAR'
  | 'TOO_LARGE'
  | 'INVALID_INPUT'
  | 'DOCKER_UNAVAILABLE'
  | 'IMAGE_MISSING'
  | 'SANDBOX_CLOSED'
  | 'SANDBOX_FAILED';

/** An expected failure of a sandbox operation; `code` is one of `SandboxErrorCode`. */
export class SandboxError extends MnemaraError {
  declare readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(code, message, options);
  }
}
