import { setTimeout as sleep } from 'node:timers/promises';
import { MnemaraError } from '../config/errors.js';
import { HeadConflictError } from './errors.js';

/** How a head move is retried: exponential backoff with full jitter, until it lands or `boundMs` passes. */
export interface HeadRetryOptions {
  /** Give up after this long, in ms (config `snapshot.headWaitMinutes` × 60,000). */
  boundMs: number;
  /** First backoff ceiling in ms (default 25); it doubles per attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** Largest backoff ceiling in ms (default 2,000). */
  maxDelayMs?: number;
}

/** The time bound passed while the head kept moving (or stayed locked): the caller records its work on a branch. */
export class HeadWaitExpiredError extends MnemaraError {
  readonly lineage: string;
  readonly attempts: number;

  constructor(lineage: string, attempts: number, boundMs: number, cause: unknown) {
    super('HEAD_WAIT_EXPIRED', `the head of lineage "${lineage}" kept moving: ${attempts} attempts in ${Math.round(boundMs / 1000)} s did not land`, {
      hint: 'Raise snapshot.headWaitMinutes, or run fewer sessions on one lineage at once.',
      cause,
    });
    this.lineage = lineage;
    this.attempts = attempts;
  }
}

/** A retryable failure of one head move: the head moved (`HeadConflictError`) or its lock stayed held. */
function retryable(err: unknown): boolean {
  return err instanceof HeadConflictError || (err instanceof MnemaraError && err.code === 'LOCK_TIMEOUT');
}

/**
 * Runs `attempt` (one compare-and-swap) until it succeeds. After each retryable failure it waits a random time
 * in [0, min(maxDelayMs, baseDelayMs·2^n)) ("full jitter", so that N writers spread out instead of colliding
 * again in step), then calls `onConflict(err)`, which must prepare the next attempt (re-read the head, merge,
 * rebase). Any other error is thrown as it is.
 * @throws HeadWaitExpiredError when `boundMs` has passed (the last conflict is its `cause`).
 */
export async function retryHeadMove<T>(
  lineage: string,
  attempt: () => Promise<T>,
  onConflict: (err: unknown) => Promise<void>,
  options: HeadRetryOptions,
): Promise<T> {
  const deadline = Date.now() + options.boundMs;
  const base = options.baseDelayMs ?? 25;
  const max = options.maxDelayMs ?? 2_000;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!retryable(err)) throw err;
      if (Date.now() >= deadline) throw new HeadWaitExpiredError(lineage, n + 1, options.boundMs, err);
      await sleep(Math.floor(Math.random() * Math.min(max, base * 2 ** Math.min(n, 20))));
      await onConflict(err);
    }
  }
}
