import pino, { type Logger } from 'pino';

/**
 * The one logger factory. Nothing below `cli` prints; modules log through pino to stderr.
 * Level from `MNEMARA_LOG_LEVEL` (default `warn`, so that CLI output stays readable).
 */
export function createLogger(name: string, level = process.env.MNEMARA_LOG_LEVEL ?? 'warn'): Logger {
  return pino({ name, level }, pino.destination(2));
}

let root: Logger | undefined;

/** A child of the process-wide root logger, bound to `module`. */
export function logger(module: string): Logger {
  root ??= createLogger('mnemara');
  return root.child({ module });
}

export type { Logger };
