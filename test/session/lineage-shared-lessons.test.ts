/**
 * Trial 22: `lineage show` listed a lesson merged from two runs under the older run, with the newer run's task in
 * its text, and said nothing of the other run. Each listing of a lesson with several sources now names the others.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMemoryMd, type MemoryEntry } from '../../src/memory/memory-md.js';
import { lineageHistory } from '../../src/session/lineage.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

const LAYOUT = { memoriesDir: 'memories', sessionsDir: 'sessions' };

function entry(id: string, text: string, sources: string[]): MemoryEntry {
  return { id, kind: 'procedure', text, sources, importance: 3, at: '2026-12-05T10:00:00Z', edited: false };
}

describe('lineage show and a lesson of two runs', () => {
  it('lists it under each run, naming the other', async () => {
    const store = await openStore(tempDir());
    const ws = tempDir();
    mkdirSync(join(ws, 'memories'));
    const md = renderMemoryMd(
      [
        entry('m-0000000a', 'Noted by the agent at the end of a run (add the days unit): run the tests with `./scripts/check.sh`.', ['r-1', 'r-2']),
        entry('m-0000000b', 'The parser lives in `src/durations/parse.py`.', ['r-1']),
      ],
      { consolidatedAt: '2026-12-05T10:00:00Z', producer: 'deterministic', promptVersion: 'v' },
    );
    writeFileSync(join(ws, 'memories', 'MEMORY.md'), md);
    const m = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', rolloutIds: ['r-1', 'r-2'] });
    await store.advanceHead('app', null, m.id);
    const h = await lineageHistory(store, 'app', LAYOUT);
    const run = (id: string) => h.runs.find((r) => r.rolloutId === id)!;
    expect(run('r-1').lessons).toHaveLength(2);
    expect(run('r-1').lessonsAlsoFrom).toEqual([['r-2'], []]);
    expect(run('r-2').lessons).toEqual([expect.stringContaining('add the days unit')]);
    expect(run('r-2').lessonsAlsoFrom).toEqual([['r-1']]);
  });
});
