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

/** Linux's PATH_MAX: the bytes of a path one system call takes, its terminating NUL included. */
export const PATH_MAX = 4096;

/**
 * Why a path is left out when, with the directory it lies in, it reaches `PATH_MAX`: no system call can name it,
 * so nothing (our walk, Docker's archive API, tar, the store's staging directory) can read or write it. The same
 * words on every path (host directory, sandbox stream, sandbox changes), for the manifest's `skipped`.
 */
export const TOO_LONG_TO_READ = `path too long (with the directory it is in, ${PATH_MAX} bytes or more: over PATH_MAX): left out with what it holds`;
