/**
 * Trial 21 F2: two runs interrupted on different tasks ("interrupt TERM", "interrupt INT") left unfinished-work
 * notes one task word and one last step apart; consolidation took them for one lesson and kept only the newer
 * wording, so the first run's work was no longer in MEMORY.md. Notes of different tasks stay two entries, in
 * one consolidation and across two; notes of the same task still merge.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { nearDuplicate } from '../../src/memory/normalize.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString();
const note = (task: string, file: string) =>
  `Unfinished (interrupted): ${task}. Files changed so far: ${file}. Last step: \`echo draft > ${file}; sleep 60\` (exit 1).`;

describe('unfinished-work notes of different tasks', () => {
  it('are no near-duplicates, while two notes of one task are', () => {
    expect(nearDuplicate(note('migrate the billing tables', 'a.sql'), note('migrate the invoice tables', 'b.sql'))).toBe(false);
    expect(nearDuplicate(note('migrate the billing tables', 'a.sql'), note('migrate the billing tables', 'b.sql'))).toBe(true);
  });

  it('stay two entries across consolidations, each citing its own run', async () => {
    const paths = await tempWorkspace();
    const run = (task: string) => ({ task, outcome: 'interrupted' });
    await writeRollout(paths, 'r-1', day(1), [raw('task_state', note('port the parser to the v2 grammar', 'parser.rs'), 4)], run('port the parser to the v2 grammar'));
    await consolidate({ paths, config: CONFIG, mode: 'deterministic', now: () => new Date(day(2)) });
    await writeRollout(paths, 'r-2', day(3), [raw('task_state', note('port the lexer to the v2 grammar', 'lexer.rs'), 4)], run('port the lexer to the v2 grammar'));
    await consolidate({ paths, config: CONFIG, mode: 'deterministic', now: () => new Date(day(4)) });
    const entries = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries.filter((e) => e.kind === 'task_state');
    expect(entries.map((e) => [e.sources, /port the (\w+)/.exec(e.text)?.[1]])).toEqual(
      expect.arrayContaining([[['r-1'], 'parser'], [['r-2'], 'lexer']]),
    );
    expect(entries).toHaveLength(2);
  });
});
