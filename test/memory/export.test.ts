import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPORT_BEGIN, EXPORT_END, renderLessonsSection, spliceSection, writeLessonsSection } from '../../src/memory/export.js';
import { learnTranscript } from '../../src/memory/learn.js';
import { memoryPaths } from '../../src/memory/layout.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { REPO_FIXTURES } from '../../scripts/eval-memory/labels.js';

const det = { extractor: 'deterministic' as const, config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 } };

describe('memory export', () => {
  it('writes every MEMORY.md entry with its id into CLAUDE.md, and a second export replaces the section instead of appending', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-export-'));
    await learnTranscript(join(REPO_FIXTURES, 'quillmate-csv-export-header.json'), ws, det);
    const entries = parseMemoryMd(await readFile(memoryPaths(ws).memoryMd, 'utf8')).entries;
    expect(entries.length).toBeGreaterThan(0);
    const { section, ids } = await renderLessonsSection(ws, 'claude-md');
    expect(ids).toEqual(expect.arrayContaining(entries.map((e) => e.id)));
    for (const e of entries) expect(section).toContain(`(${e.id})`);

    const file = join(ws, 'CLAUDE.md');
    const mine = '# Project notes\n\nRun `make check` before pushing.\n';
    const after = '\n## Written after the section\nkeep me\n';
    await writeFile(file, mine);
    expect(await writeLessonsSection(file, section)).toBe(true);
    const once = await readFile(file, 'utf8');
    expect(once.startsWith(mine)).toBe(true);
    await writeFile(file, once + after);
    // Learning more and exporting again: the section is replaced in place, the user's text around it kept.
    await learnTranscript(join(REPO_FIXTURES, 'ferrule-gateway-customer-note.json'), ws, det);
    const next = await renderLessonsSection(ws, 'claude-md');
    expect(next.ids.length).toBeGreaterThan(ids.length);
    await writeLessonsSection(file, next.section);
    const twice = await readFile(file, 'utf8');
    expect(twice.split(EXPORT_BEGIN).length - 1).toBe(1);
    expect(twice.split(EXPORT_END).length - 1).toBe(1);
    expect(twice).toBe(mine + '\n' + next.section + '\n' + after);
    expect(await writeLessonsSection(file, next.section)).toBe(false);
  });

  it('refuses a file whose section lost its end marker rather than overwrite the text after it', () => {
    expect(() => spliceSection(`intro\n${EXPORT_BEGIN}\n- old\nmy notes\n`, `${EXPORT_BEGIN}\nnew\n${EXPORT_END}`)).toThrow(/damaged mnemara lessons section/);
    expect(spliceSection('', `${EXPORT_BEGIN}\nx\n${EXPORT_END}`)).toBe(`${EXPORT_BEGIN}\nx\n${EXPORT_END}\n`);
  });

  it('says so when there are no lessons yet (AGENTS.md)', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-export-'));
    const { section, ids } = await renderLessonsSection(ws, 'agents-md');
    expect(ids).toEqual([]);
    expect(section).toContain('_No lessons yet._');
  });
});
