/**
 * Progress of long work, reported as events rather than printed (nothing below `cli` prints).
 * `step` names the work (`restore`, `snapshot`, `image-build`, `phase1` …); `done`/`total` are in `unit`.
 */
export interface ProgressEvent {
  step: string;
  phase: 'start' | 'progress' | 'end';
  message?: string;
  done?: number;
  total?: number;
  unit?: 'bytes' | 'files' | 'rollouts' | 'entries' | 'turns';
  /** Milliseconds since the step started (on `end`). */
  elapsedMs?: number;
  /** `false` on an `end` that failed (the message says why); absent or `true` = succeeded. */
  ok?: boolean;
}

/** A sink for progress events; callers pass one down, modules call it (it must not throw). */
export type OnProgress = (event: ProgressEvent) => void;

/** A sink that drops everything; the default when nobody listens. */
export const noProgress: OnProgress = () => {};
