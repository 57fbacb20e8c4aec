import { logger } from '../config/logger.js';
import type { OnProgress, ProgressEvent } from '../config/progress.js';
import type { SessionEvent, SessionHooks, SessionStep } from './types.js';

const log = logger('session');

/** Sends events to the caller's listener; a throwing listener is logged and ignored. */
export function eventSink(hooks: SessionHooks): (event: SessionEvent) => void {
  return (event) => {
    try {
      hooks.onEvent?.(event);
    } catch (err) {
      log.warn({ err }, 'session event listener threw; ignored');
    }
  };
}

/** Progress events of modules below the session, forwarded as session events. */
export function progressOf(emit: (event: SessionEvent) => void): OnProgress {
  return (progress: ProgressEvent) => emit({ type: 'progress', progress });
}

/**
 * Runs one step of the session between a `start` and an `end` progress event, and records its wall time (ms)
 * in `timings`. `describe` turns the step's value into the end event's message. A failing step emits `end`
 * with the error's message and rethrows.
 */
export async function step<T>(
  name: SessionStep,
  emit: (event: SessionEvent) => void,
  timings: Partial<Record<SessionStep, number>>,
  fn: () => Promise<T>,
  describe: (value: T) => string | undefined = () => undefined,
  startMessage?: string,
): Promise<T> {
  const started = Date.now();
  emit({ type: 'progress', progress: { step: name, phase: 'start', ...(startMessage ? { message: startMessage } : {}) } });
  try {
    const value = await fn();
    const elapsedMs = Date.now() - started;
    timings[name] = elapsedMs;
    const message = describe(value);
    emit({ type: 'progress', progress: { step: name, phase: 'end', elapsedMs, ...(message ? { message } : {}) } });
    return value;
  } catch (err) {
    const elapsedMs = Date.now() - started;
    timings[name] = elapsedMs;
    emit({ type: 'progress', progress: { step: name, phase: 'end', ok: false, elapsedMs, message: `failed: ${(err as Error).message}` } });
    throw err;
  }
}
