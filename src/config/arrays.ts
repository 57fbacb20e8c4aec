/**
 * Array helpers for lists whose length the input decides (lines of a command's output, files of a workspace,
 * runs under the home). Spreading such a list into a call, `push(...xs)`, `Math.max(...xs)`, passes each element
 * as an argument on the stack, and past roughly 100 000 elements V8 throws "Maximum call stack size exceeded"
 * (issue #10 B: a command's 300 MB of output crashed the run in redaction). These loop instead.
 */

/** Appends every item of `items` to `target` (in order) and returns `target`. Any length; never throws. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** `array.splice(start, deleteCount, ...items)` for any number of items; returns the removed elements. */
export function spliceAll<T>(array: T[], start: number, deleteCount: number, items: readonly T[]): T[] {
  const tail = array.splice(start);
  const removed = tail.splice(0, deleteCount);
  pushAll(array, items);
  pushAll(array, tail);
  return removed;
}

/** The largest of `values`, or `empty` when there are none (like `Math.max(empty, ...values)` for any length). */
export function maxOf(values: Iterable<number>, empty = Number.NEGATIVE_INFINITY): number {
  let best = empty;
  for (const v of values) if (v > best || Number.isNaN(v)) best = v;
  return best;
}

/** The smallest of `values`, or `empty` when there are none (like `Math.min(empty, ...values)` for any length). */
export function minOf(values: Iterable<number>, empty = Number.POSITIVE_INFINITY): number {
  let best = empty;
  for (const v of values) if (v < best || Number.isNaN(v)) best = v;
  return best;
}
