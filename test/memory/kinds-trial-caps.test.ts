import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../../src/memory/archive.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { loadState } from '../../src/memory/state.js';
import { raw, tempWorkspace, writeRollout } from './helpers.js';

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString();

// New-user trial, second round (issue 12 item 3): 250 hand-written bullets and a preference learned in the same run.
describe('caps keep the newest important lessons and drop the oldest hand notes first, each named and tombstoned', () => {
  it('the preference learned in this run survives 250 hand bullets; the first bullets of the list go, in order', async () => {
    const paths = await tempWorkspace();
    const config = { maxRawMemories: 256, memoryMdTokens: 3000, summaryTokens: 800 };
    await writeRollout(paths, 'r-old', day(1), [raw('pitfall', 'Old lesson: `make qux` needs `apt-get install -y libqux-dev` first on this image.', 2)]);
    await consolidate({ paths, config, mode: 'deterministic', now: () => new Date(day(2)) });
    const md = await readFile(paths.memoryMd, 'utf8');
    const mine = Array.from({ length: 250 }, (_, i) => `- Note ${String(i).padStart(3, '0')}: queue q${i} belongs to team t${i % 7}, ask them before changing it.`);
    await writeFile(paths.memoryMd, md.replace('## Pitfalls', `## Facts\n\n${mine.join('\n')}\n\n## Pitfalls`));
    await writeRollout(paths, 'r-new', day(3), [raw('preference', 'The user said mid-run: “from now on always run `ruff check --fix` before a commit”', 5)]);
    const steps: string[] = [];
    const r = await consolidate({ paths, config, mode: 'deterministic', now: () => new Date(day(4)), onProgress: (e) => steps.push(e.message ?? '') });
    const kept = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries;
    expect(kept.some((e) => e.kind === 'preference' && e.text.includes('ruff check --fix'))).toBe(true);
    // Which hand notes went: the oldest (first in the list), not a hash-chosen set.
    const keptNotes = kept.filter((e) => e.edited).map((e) => Number(/Note (\d+)/.exec(e.text)![1]));
    expect(keptNotes.length).toBeGreaterThan(0);
    expect(keptNotes.length).toBeLessThan(250);
    const lowest = Math.min(...keptNotes);
    expect([...keptNotes].sort((a, b) => a - b)).toEqual(Array.from({ length: 250 - lowest }, (_, i) => lowest + i));
    // Every dropped entry (the old learned one too) is archived, tombstoned and named in the report.
    const archived = await readArchive(paths);
    expect(archived.map((e) => e.id).sort()).toEqual([...r.archived].sort());
    expect(archived.some((e) => !e.edited && e.text.includes('make qux'))).toBe(true);
    const state = await loadState(paths.stateFile);
    for (const id of r.archived) {
      expect(state.forgotten[id]?.reason).toBe('capped');
      expect(steps.at(-1)).toContain(id);
    }
  });
});
