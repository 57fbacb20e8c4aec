/**
 * Trial 27 F5: a run whose head move merged other runs' memory counted their lessons as its own added. What a
 * merged-in head brought is left out, unless it cites this run (its lesson merged into one of theirs).
 */
import { describe, expect, it } from 'vitest';
import type { MemoryEntry } from '../../src/memory/memory-md.js';
import { diffLessons } from '../../src/session/lessons.js';

const entry = (id: string, sources: string[], importance = 3): MemoryEntry => ({ id, kind: 'procedure', text: `lesson ${id}`, sources, importance, edited: false }) as MemoryEntry;

describe('the lessons a run added when its head move merged other heads', () => {
  it("leaves out the other runs' entries and changes, keeps its own and its lesson merged into theirs", () => {
    const old = entry('m-old', ['r0']);
    const before = [old];
    const theirs = new Map([
      ['m-other', entry('m-other', ['r2'])],
      ['m-same', entry('m-same', ['r2'])],
      ['m-old', entry('m-old', ['r0', 'r2'])],
    ]);
    const after = [entry('m-old', ['r0', 'r2']), entry('m-other', ['r2']), entry('m-same', ['r1', 'r2']), entry('m-mine', ['r1'])];
    const lessons = diffLessons(before, after, undefined, { rolloutId: 'r1', mergedIn: theirs });
    expect(lessons.added.sort()).toEqual(['m-mine', 'm-same']);
    expect(lessons.changed).toEqual([]);
    // The same entry changed again by this run (another source, another importance) is its change.
    const again = diffLessons(before, [entry('m-old', ['r0', 'r1', 'r2'], 4)], undefined, { rolloutId: 'r1', mergedIn: theirs });
    expect(again.changed).toEqual(['m-old']);
    // Without merged heads, everything new is the run's.
    expect(diffLessons(before, after).added.sort()).toEqual(['m-mine', 'm-other', 'm-same']);
  });
});
