import { notWritableError } from '../config/access-errors.js';
import { MnemaraError } from '../config/errors.js';
import { explicitStore, ioFailureCode, ioFailureError } from '../config/io-errors.js';
import { mnemaraHome } from '../config/paths.js';
import type { ProgressEvent } from '../config/progress.js';
import { terminalText } from '../config/terminal.js';
import { displayName } from '../snapshot/names.js';

export { formatBytes } from '../config/bytes.js';

/**
 * Every line the CLI prints goes through here: a file name that is not UTF-8 is held as escaped bytes
 * (`snapshot/names.ts`), and writing those as they are would show U+FFFD, so two different names would look
 * the same. `displayName` shows each such byte as `\xNN` (docs/snapshots.md, "Names"), in text and in `--json`.
 */
export function printable(text: string): string {
  return displayName(text);
}

/** Writes `text` to stdout with names escaped (`printable`) and control characters shown (`terminalText`). */
export function writeOut(text: string): void {
  process.stdout.write(terminalText(printable(text)));
}

/** Writes `text` to stderr with names escaped (`printable`) and control characters shown (`terminalText`). */
export function writeErr(text: string): void {
  process.stderr.write(terminalText(printable(text)));
}

/**
 * A file's path for a line of a list (`A path`): a name with a line break, a tab or a control character, or
 * spaces at an end, is shown as a JSON string (`"nl\nname.txt"`), as git quotes such names; else as it is. An
 * agent chose the names: `x\napplied … 0 added` printed raw forged a line of the report (trial 22 F2).
 */
export function listedPath(path: string): string {
  return /[\u0000-\u001f\u007f-\u009f]|^\s|\s$/.test(path) || path.startsWith('"') ? JSON.stringify(path) : path;
}

/** `JSON.stringify` with every string's escaped name bytes shown as `\xNN`, as in the human text. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? printable(v) : v), 2);
}

/**
 * Exit codes of every `mnemara` command:
 * 0 success; 1 the work ran but failed (an agent run that did not complete, a failed check or verify);
 * 2 bad input (usage, a missing file, an invalid option); 3 mnemara itself failed (engine down, store corrupt, crash).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, internal: 3 } as const;

/** Codes of `MnemaraError`s that mean "the user's input was wrong" (exit 2); everything else is exit 3. */
const USAGE_CODES = new Set(['USAGE', 'INVALID_CONFIG', 'NOT_FOUND', 'INVALID_INPUT', 'HOST_CHANGED']);

/** Prints a result: one JSON document on stdout with `--json`, else the human text. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  if (json) process.stdout.write(`${printableJson(value)}\n`);
  else {
    const text = human();
    if (text) writeOut(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/**
 * Reports a failure and returns the exit code to use: a `MnemaraError` prints its message and hint; anything
 * else is a bug and prints its stack, but a host I/O failure (`ioFailureError`, naming `command`: the words of the
 * command line that failed, e.g. `recover`, `snapshot create`). With `--json` the error goes to stdout as `{error: {code, message, hint}}`.
 */
export function reportError(thrown: unknown, json: boolean, command?: string): number {
  // A full disk or failing device is not a bug: one clear message, no stack trace.
  // So is a home or store this process may not write (a read-only mount, another user's directory).
  const denied = thrown instanceof MnemaraError ? null : notWritableError(thrown, loadHome());
  const err = denied ?? (!(thrown instanceof MnemaraError) && ioFailureCode(thrown) ? ioFailureError(thrown, 'writing', { home: loadHome(), ...explicitStore(loadHome(), storeOnCommandLine()), ...(command ? { command } : {}) }) : thrown);
  const known = err instanceof MnemaraError;
  const code = known ? err.code : 'INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  const hint = known ? err.hint : undefined;
  if (json) {
    process.stdout.write(`${printableJson({ error: { code, message, hint } })}\n`);
  } else {
    writeErr(`mnemara: ${message}\n`);
    if (hint) writeErr(`  hint: ${hint}\n`);
    if (!known && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  }
  return known && USAGE_CODES.has(code) ? EXIT.usage : EXIT.internal;
}

/**
 * A progress printer for human output: one line per step start/end on stderr, and a throttled
 * percentage for steps that report `done`/`total` and run for more than a second.
 */
export function progressPrinter(enabled: boolean): (event: ProgressEvent) => void {
  const started = new Map<string, number>();
  const lastPrint = new Map<string, number>();
  return (event) => {
    if (!enabled) return;
    const now = Date.now();
    if (event.phase === 'start') {
      started.set(event.step, now);
      writeErr(`… ${event.step}${event.message ? `: ${event.message}` : ''}\n`);
      return;
    }
    if (event.phase === 'end') {
      const ms = event.elapsedMs ?? now - (started.get(event.step) ?? now);
      writeErr(`${event.ok === false ? '✗' : '✓'} ${event.step}${event.message ? `: ${event.message}` : ''} (${(ms / 1000).toFixed(1)} s)\n`);
      return;
    }
    // `run` shows its steps' starts itself and hands only progress here: the first event then starts the clock
    // (without it, `since` stayed 0 and no progress of a run was ever printed).
    if (!started.has(event.step)) started.set(event.step, now);
    const since = now - started.get(event.step)!;
    if (since < 1000 || now - (lastPrint.get(event.step) ?? 0) < 1000) return;
    lastPrint.set(event.step, now);
    const pct = event.total ? ` ${Math.floor(((event.done ?? 0) / event.total) * 100)}%` : '';
    const count = event.done !== undefined ? ` ${event.done}${event.total ? `/${event.total}` : ''} ${event.unit ?? ''}` : '';
    writeErr(`  ${event.step}${pct}${count}${event.message ? ` ${event.message}` : ''}\n`);
  };
}

/**
 * The `--store` this command line gave, if any: the cleanup commands a full disk's hint names must be given it too
 * (a store from `MNEMARA_STORE` or a config file reaches them the same way it reached this one).
 */
function storeOnCommandLine(): string | undefined {
  const args = process.argv;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--store') return args[i + 1];
    if (args[i]?.startsWith('--store=')) return args[i]?.slice('--store='.length);
  }
  return undefined;
}

function loadHome(): string {
  try {
    return mnemaraHome();
  } catch {
    return '$MNEMARA_HOME';
  }
}

/** `s` as one shell word for a printed hint: as it is when it is plain, else single-quoted. */
export const shellWord = (s: string): string => (/^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
