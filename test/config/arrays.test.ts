import { describe, expect, it } from 'vitest';
import { maxOf, minOf, pushAll, spliceAll } from '../../src/config/arrays.js';

// Issue #10 B: `push(...xs)` and `Math.max(...xs)` put every element on the stack; a million is past it.
describe('array helpers for input-sized lists', () => {
  const big = Array.from({ length: 1_000_000 }, (_, i) => i);

  it('the spread they replace overflows on such a list', () => {
    expect(() => [].push(...(big as never[]))).toThrow(RangeError);
    expect(() => Math.max(...big)).toThrow(RangeError);
  });

  it('pushAll appends any number of items, from any iterable, in order', () => {
    const out = pushAll([-1], big);
    expect(out.length).toBe(1_000_001);
    expect(out[1_000_000]).toBe(999_999);
    expect(pushAll<string>([], new Map([['a', 1], ['b', 2]]).keys())).toEqual(['a', 'b']);
  });

  it('spliceAll inserts and removes like splice', () => {
    const a = [1, 2, 3, 4];
    expect(spliceAll(a, 1, 2, big)).toEqual([2, 3]);
    expect(a.length).toBe(1_000_002);
    expect([a[0], a[1], a.at(-2), a.at(-1)]).toEqual([1, 0, 999_999, 4]);
    const b = [1, 2, 3];
    expect(spliceAll(b, 0, b.length, [9])).toEqual([1, 2, 3]);
    expect(b).toEqual([9]);
  });

  it('maxOf and minOf take any length and say what an empty list gives', () => {
    expect(maxOf(big)).toBe(999_999);
    expect(minOf(big)).toBe(0);
    expect(maxOf([], 0)).toBe(0);
    expect(minOf([])).toBe(Number.POSITIVE_INFINITY);
    expect(maxOf([3, 7], 5)).toBe(7);
    expect(maxOf([1, 2], 5)).toBe(5);
  });
});
