import { constants } from 'node:os';

/** Exit code for a process killed by `signal`: 128 + the signal number, as a shell reports it. */
export function signalExitCode(signal: string): number | null {
  const n = (constants.signals as Record<string, number | undefined>)[signal];
  return n === undefined ? null : 128 + n;
}

/** Default for `ExecOptions.timeoutMs`/`maxOutputBytes` when neither the call nor the sandbox says. */
export interface ExecDefaults {
  /** ms */
  timeoutMs: number;
  /** bytes, per stream */
  maxOutputBytes: number;
}

/** How long, in ms, a call keeps reading after its process ended, for children that still hold stdout. */
export const DRAIN_AFTER_EXIT_MS = 2_000;
