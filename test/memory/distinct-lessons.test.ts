/**
 * Trial 22 F1: six concurrent runs each left a note for its own area ("for area c6N, run `make check-c6N`
 * before `./scripts/check.sh`"); consolidation read them as near-duplicates (most words shared, and the note's
 * wrapper adds more) and kept one text citing all six runs: five lessons were gone. Two lessons that each name a
 * concrete thing the other does not (a number, a path, a target) are two lessons; the same note from two runs of
 * different tasks, and a wording that only adds to the other, are still one.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { nearDuplicate } from '../../src/memory/normalize.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString();
const noted = (task: string, note: string) => `Noted by the agent at the end of a run (${task}): “${note}”`;

describe('lessons about different concrete things', () => {
  it('are no near-duplicates; rewordings of one lesson still are', () => {
    expect(nearDuplicate('Run `npm run test:unit` in packages/api before committing.', 'Run `npm run test:unit` in packages/web before committing.')).toBe(false);
    expect(nearDuplicate('Build the docs with `make docs PYVER=3.11`; 3.12 fails.', 'Build the docs with `make docs PYVER=3.12`; 3.13 fails.')).toBe(false);
    expect(nearDuplicate(noted('fix issue #12', 'run `./ci/check.sh` (it sets PYTHONPATH=src)'), noted('fix issue #13', 'run `./ci/check.sh` (it sets PYTHONPATH=src)'))).toBe(true);
    expect(nearDuplicate('Run the tests with `./ci/check.sh` (passed in this workspace).', 'Run the tests with `./ci/check.sh -v` (passed in this workspace).')).toBe(true);
  });

  it('six runs, six areas: six entries, each consolidated as its run ended', async () => {
    const paths = await tempWorkspace();
    for (let i = 1; i <= 6; i++) {
      if (i > 1) await consolidate({ paths, config: CONFIG, mode: 'deterministic', now: () => new Date(day(i)) });
      await writeRollout(paths, `r-${i}`, day(i), [raw('procedure', noted(`batch b7 ${i}`, `for area b7${i}, run \`make check-b7${i}\` before \`./ci/check.sh\` (zoneb7${i} needs it).`), 3)]);
    }
    await consolidate({ paths, config: CONFIG, mode: 'deterministic', now: () => new Date(day(8)) });
    const md = await readFile(paths.memoryMd, 'utf8');
    for (let i = 1; i <= 6; i++) expect(md, `area b7${i}`).toContain(`make check-b7${i}`);
    expect(parseMemoryMd(md).entries.filter((e) => e.text.includes('make check-b7'))).toHaveLength(6);
  });
});
