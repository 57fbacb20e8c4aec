/**
 * How a sandbox tells that its container stopped under a command (the agent killed every process in it, its init
 * too): the runtime's own refusal of an exec, and the container's state once the stop is recorded. Used by
 * `DockerSandbox.execAlive`, which starts the container again and retries.
 */
import type Docker from 'dockerode';
import type { RawExecResult } from './exec.js';

/**
 * The runtime's refusal of an exec created just before the container's init died: exit 126 with the runtime's
 * own one-line message as the command's output. Its words vary with the moment the exec met the stop (seen on
 * this engine: "cannot exec in a stopped state: unknown", "... a deleted state ...", "task <64 hex> not found:
 * not found", "ttrpc: closed: unknown"; elsewhere "OCI runtime exec failed: exec failed: cannot exec in a stopped
 * container: unknown"), so the shapes are matched, not one text; a command's own exit 126 (a file that is not
 * executable) says something else.
 */
const RUNTIME_REFUSAL = /^(?:OCI runtime exec failed\b|exec failed: |cannot exec in a (?:stopped|deleted|created|paused) (?:state|container)\b|task [0-9a-f]{64} not found\b|ttrpc: closed\b)/;

/**
 * The engine's refusal written as the exec's output: the exec passed the engine's first check, then the container
 * stopped and the engine dropped its execs (or saw it stopped) before the start, and once the answer has begun
 * the engine can only write its error into the stream (moby's exec start handler). Nothing ran; exec inspect
 * then fails or has no exit code, so the result's exit code is null. Found in CI (docker-kill-all.test.ts,
 * 1 kill-then-exec pair of 10): "No such exec instance: <64 hex>".
 */
const ENGINE_REFUSAL = /^(?:Error response from daemon: )?(?:No such exec instance: [0-9a-f]{64}|Container [0-9a-f]{64} is (?:not running|restarting|paused)\b)/;

/**
 * Whether `r` is the runtime's refusal (`RUNTIME_REFUSAL`, exit 126) or the engine's (`ENGINE_REFUSAL`, no exit
 * code) rather than a command's own result. Pure.
 */
export function refusedAsStopped(r: RawExecResult): boolean {
  const said = `${r.stdout.text()}${r.stderr.text()}`.trim();
  if (said.length >= 1_000) return false;
  if (r.exitCode === 126) return RUNTIME_REFUSAL.test(said);
  return r.exitCode === null && !r.timedOut && ENGINE_REFUSAL.test(said);
}

/**
 * The container's state once it is no longer running, polled every 100 ms for up to `waitMs` (a stop under way);
 * the running state when the wait ends first; null when the container is gone. Never throws.
 */
export async function stoppedState(container: Docker.Container, waitMs: number): Promise<{ Running: boolean; ExitCode: number } | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = await container.inspect().then((i) => i.State, () => null);
    if (!state || !state.Running || Date.now() >= deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
