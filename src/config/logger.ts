import { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger } from 'pino';
import { terminalText } from './terminal.js';

/**
 * The one logger factory. Nothing below `cli` prints; modules log through pino to stderr.
 * Level from `MNEMARA_LOG_LEVEL` (default `warn`, so that CLI output stays readable).
 * Format from `MNEMARA_LOG_FORMAT`: `text` (default; one readable line a record, for people at a terminal or
 * reading CI logs) or `json` (pino's own NDJSON, for log collectors).
 */
export function createLogger(name: string, level = process.env.MNEMARA_LOG_LEVEL ?? 'warn'): Logger {
  const json = process.env.MNEMARA_LOG_FORMAT === 'json';
  return pino({ name, level }, json ? pino.destination(2) : textDestination());
}

let root: Logger | undefined;

/** A child of the process-wide root logger, bound to `module`. */
export function logger(module: string): Logger {
  root ??= createLogger('mnemara');
  return root.child({ module });
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'module', 'msg', 'v']);

/** Renders one pino NDJSON record as `mnemara: warning [snapshot]: msg (key=value …)`. */
export function formatLogLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = LEVELS[rec.level as number] ?? String(rec.level);
  const module = typeof rec.module === 'string' ? ` [${rec.module}]` : '';
  const extras = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : isSerializedError(v) ? v.message : JSON.stringify(v)}`);
  return `mnemara: ${level}${module}: ${String(rec.msg ?? '')}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}

/** pino's error serializer gives `{type, message, stack}`; a person reads the message (the JSON format keeps all). */
function isSerializedError(v: unknown): v is { message: string } {
  return typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string' && 'stack' in v;
}

function textDestination(): DestinationStream {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) process.stderr.write(`${terminalText(formatLogLine(line))}\n`);
      done();
    },
  });
}

export type { Logger };
