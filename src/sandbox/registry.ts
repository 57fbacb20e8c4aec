import { logger } from '../config/logger.js';

const log = logger('sandbox');

/** What the registry needs of an open sandbox. `closeSync` is the last resort at process exit, where nothing async runs. */
export interface Closable {
  readonly id: string;
  close(): Promise<void>;
  closeSync?(): void;
}

const open = new Set<Closable>();
let installed = false;
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Remembers an open sandbox so it is removed when the process ends: on normal exit (synchronously, via
 * `closeSync`) and on SIGINT/SIGTERM. On a signal, when nobody else listens for it, every open sandbox is closed
 * and the process exits with 128 + the signal number; when another listener exists (a session that wants to
 * snapshot first), that listener owns the shutdown and is expected to call `close()` — the exit hook still
 * removes whatever is left.
 */
export function track(sandbox: Closable): void {
  open.add(sandbox);
  if (!installed) {
    installed = true;
    process.on('exit', onExit);
    for (const sig of SIGNALS) process.on(sig, onSignal);
  }
}

/** Forgets a sandbox (it was closed); removes the process handlers when none is left. */
export function untrack(sandbox: Closable): void {
  open.delete(sandbox);
  if (open.size === 0 && installed) {
    installed = false;
    process.off('exit', onExit);
    for (const sig of SIGNALS) process.off(sig, onSignal);
  }
}

/**
 * Leaves a sandbox running after this process ends (`mnemara run --keep-sandbox`, or a sandbox kept for
 * rescue): it is no longer removed at exit or on a signal. `close()` still removes it; once this process is gone,
 * `mnemara sandbox prune` treats it as a leftover.
 */
export function keepSandbox(sandbox: Closable): void {
  untrack(sandbox);
}

/**
 * Leaves every sandbox this process still has open running after it ends (a second Ctrl-C that quits at once):
 * its /workspace may hold the run's only copy of the work, and `mnemara recover` (or the lineage's next run)
 * snapshots it, as after a SIGKILL. Returns how many were kept.
 */
export function keepAllSandboxes(): number {
  const kept = open.size;
  for (const s of [...open]) untrack(s);
  return kept;
}

/** Closes every sandbox this process still has open; errors are logged, not thrown. Resolves when all are done. */
export async function closeAllSandboxes(): Promise<void> {
  await Promise.all(
    [...open].map((s) =>
      s.close().catch((err: unknown) => log.error({ err, sandbox: s.id }, 'could not remove sandbox')),
    ),
  );
}

/** Sandboxes this process has open (for diagnostics and tests). */
export function openSandboxCount(): number {
  return open.size;
}

function onExit(): void {
  for (const s of [...open]) {
    try {
      s.closeSync?.();
    } catch (err) {
      log.error({ err, sandbox: s.id }, 'could not remove sandbox at exit');
    }
  }
}

function onSignal(signal: (typeof SIGNALS)[number]): void {
  if (process.listenerCount(signal) > 1) return;
  log.warn({ signal, open: open.size }, 'removing open sandboxes before exiting');
  void closeAllSandboxes().finally(() => process.exit(SIGNAL_EXIT[signal]));
}
