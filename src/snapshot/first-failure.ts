import { pipeline } from 'node:stream/promises';
import { ioFailureCode } from '../config/io-errors.js';

/** Codes of failures that only echo another one: a stream destroyed because something else in its pipeline failed. */
const ECHO_CODES = new Set(['ABORT_ERR', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_UNABLE_TO_PIPE']);

/**
 * Whether `err` is an echo: the AbortError an async iterator leaves in the stream it was reading when its loop
 * threw, a premature close, a write after destroy. Such an error says nothing about what went wrong.
 */
export function isEcho(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown } | null;
  return !e || (typeof e.code === 'string' && ECHO_CODES.has(e.code)) || e.name === 'AbortError';
}

/**
 * The failures of one piece of streaming work, in the order they happened, to report its cause rather than the
 * abort it set off: a blob write that hits ENOSPC destroys the compressor, whose pipeline then rejects with "The
 * operation was aborted", which reached the user instead of "the disk is full" (issue 10 trial).
 */
export class FirstFailure {
  private readonly seen: unknown[] = [];

  /** Records `err` (the first of each kind wins in `cause`). */
  note(err: unknown): void {
    this.seen.push(err);
  }

  /**
   * Records `p`'s rejection when it happens and returns `p` itself, now with a handler: a promise awaited only
   * later (a blob write while the tar is produced) no longer ends the process as an unhandled rejection.
   */
  watch<T>(p: Promise<T>): Promise<T> {
    p.catch((err: unknown) => this.note(err));
    return p;
  }

  /** The failure to report: the first host I/O failure (ENOSPC, EIO …), else the first that is no echo, else `fallback`. */
  cause(fallback: unknown): unknown {
    return this.seen.find((e) => ioFailureCode(e) !== null) ?? this.seen.find((e) => !isEcho(e)) ?? fallback;
  }
}

/** A stage of `pipe`: a stream, or a function of the previous stage's output as `pipeline` takes it. */
type Stage = NodeJS.ReadableStream | NodeJS.WritableStream | NodeJS.ReadWriteStream | ((source: AsyncIterable<unknown>, options: { signal: AbortSignal }) => unknown);

/**
 * `pipeline` (node:stream/promises) over `stages`, rejecting with the first real failure of any stage
 * (`FirstFailure.cause`: an error a stream emitted or a function stage threw) instead of the AbortError or
 * premature close that failure caused in another stage. `signal` aborts it as `pipeline`'s own option does (the
 * rejection is then the abort). Resolves when the last stage is done.
 */
export async function pipe(stages: Stage[], options: { signal?: AbortSignal } = {}): Promise<void> {
  const failures = new FirstFailure();
  const watched = stages.map((s) => {
    if (typeof s !== 'function') {
      (s as NodeJS.EventEmitter).on('error', (err: unknown) => failures.note(err));
      return s;
    }
    return (source: AsyncIterable<unknown>, opts: { signal: AbortSignal }): unknown => {
      let out: unknown;
      try {
        out = s(source, opts);
      } catch (err) {
        failures.note(err);
        throw err;
      }
      const it = out as { [Symbol.asyncIterator]?: unknown; next?: unknown } | null;
      if (it && typeof it[Symbol.asyncIterator] === 'function' && typeof it.next === 'function') {
        return (async function* () {
          try {
            yield* out as AsyncIterable<unknown>;
          } catch (err) {
            failures.note(err);
            throw err;
          }
        })();
      }
      return Promise.resolve(out).catch((err: unknown) => {
        failures.note(err);
        throw err;
      });
    };
  });
  try {
    await (pipeline as (...args: unknown[]) => Promise<void>)(...watched, ...(options.signal ? [{ signal: options.signal }] : []));
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw failures.cause(err);
  }
}
