import type { RestoreLimits } from './types.js';

/** Defaults that fit a real repository (a large monorepo with its node_modules) but refuse bombs. */
export const DEFAULT_RESTORE_LIMITS: RestoreLimits = {
  maxTotalBytes: 8 * 1024 ** 3,
  maxFiles: 1_000_000,
  maxPathBytes: 4096,
  maxDepth: 256,
};

/** `DEFAULT_RESTORE_LIMITS` overridden by whatever the caller set. */
export function resolveLimits(partial?: Partial<RestoreLimits>): RestoreLimits {
  return { ...DEFAULT_RESTORE_LIMITS, ...(partial ?? {}) };
}
