import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { describeMemory, forgetEntry, searchMemory } from '../../src/memory/handbook.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { parseSummary } from '../../src/memory/memory-summary-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { loadState } from '../../src/memory/state.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

async function seeded() {
  const paths = await tempWorkspace();
  await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [
    raw('pitfall', 'The `integration` suite needs Postgres on port 5433.', 5),
    raw('procedure', 'Regenerate clients with `make gen` after editing proto/.', 3),
  ]);
  await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
  return paths;
}

describe('forgetEntry', () => {
  it('removes the entry from MEMORY.md and the summary, and it does not come back from old raw memories', async () => {
    const paths = await seeded();
    const target = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries.find((e) => e.text.includes('make gen'))!;
    const removed = await forgetEntry(paths.workspaceDir, target.id.slice(0, 6), CONFIG);
    expect(removed.id).toBe(target.id);
    expect(await readFile(paths.memoryMd, 'utf8')).not.toContain('make gen');
    expect(parseSummary(await readFile(paths.summaryMd, 'utf8')).entries.map((e) => e.id)).not.toContain(target.id);
    expect((await loadState(paths.stateFile)).forgotten[target.id]?.reason).toBe('forget-command');
    // A forced consolidation over the same raw memories, and a new rollout saying it again in other words.
    await consolidate({ paths, config: CONFIG, mode: 'deterministic', force: true });
    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [raw('procedure', 'Regenerate the clients with `make gen` after you edit proto/.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const md = await readFile(paths.memoryMd, 'utf8');
    expect(md).not.toContain('make gen');
    expect(md).toContain('5433');
  });

  it('says what is wrong with an unknown id', async () => {
    const paths = await seeded();
    await expect(forgetEntry(paths.workspaceDir, 'm-ffffffff', CONFIG)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(forgetEntry((await tempWorkspace()).workspaceDir, 'm-ffffffff', CONFIG)).rejects.toThrow(/no MEMORY\.md/);
  });
});

describe('searchMemory and describeMemory', () => {
  it('finds entries by words, best match first', async () => {
    const paths = await seeded();
    const hits = await searchMemory(paths.workspaceDir, ['postgres', '5433', 'nothing-like-this']);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.matched).toBe(2);
    expect(await searchMemory(paths.workspaceDir, ['zzz'])).toEqual([]);
  });

  it('summarises the layout', async () => {
    const paths = await seeded();
    const o = await describeMemory(paths.workspaceDir);
    expect(o.entries).toHaveLength(2);
    expect(o.summaryIds).toHaveLength(2);
    expect(o.rollouts).toEqual({ extracted: 0, failed: [], forgotten: 0 });
    expect(o.consolidation?.producer).toBe('deterministic');
    expect((await describeMemory((await tempWorkspace()).workspaceDir)).entries).toEqual([]);
  });
});
