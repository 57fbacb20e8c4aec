import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readArchive, restoreEntry } from '../../src/memory/archive.js';
import { searchMemory } from '../../src/memory/handbook.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { buildMemoryBlock, taskKeywords } from '../../src/memory/read.js';
import { clipGraphemes, estimateTokens } from '../../src/memory/tokens.js';
import { clip } from '../../src/memory/phase1/deterministic/text.js';
import { raw, tempWorkspace, writeRollout } from './helpers.js';

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
/** A made-up word per number (base 26), so that lessons share few words and do not merge as near-duplicates. */
const w = (n: number) => {
  let s = '';
  let k = n + 1000;
  while (k > 0) {
    s += String.fromCharCode(97 + (k % 26));
    k = Math.floor(k / 26);
  }
  return s;
};
const LESSON = (i: number) =>
  `${w(i)} ${w(i + 5000)} ${w(i + 9000)}: run \`sudo apt-get install -y lib${w(i)}-dev\` before \`make ${w(i + 13000)}\`, ${w(i + 17000)} ${w(i + 21000)} ${w(i + 25000)} ${w(i + 29000)}.`;

describe('issue 12, kind 7: caps move entries to an archive a person can see', () => {
  it('a person’s 250 hand-written bullets are capped last, archived (never deleted) and named in the summary line', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r-1', day(1), [raw('pitfall', LESSON(1), 4)]);
    const config = { maxRawMemories: 256, memoryMdTokens: 3000, summaryTokens: 800 };
    await consolidate({ paths, config, mode: 'deterministic', now: () => new Date(day(2)) });
    const md = await readFile(paths.memoryMd, 'utf8');
    const mine = Array.from({ length: 250 }, (_, i) => `- Convention ${i}: name queue ${i} after its owner team, never after the host 🧭.`);
    await writeFile(paths.memoryMd, md.replace('## Pitfalls', `## Preferences (from the user)\n\n${mine.join('\n')}\n\n## Pitfalls`));
    const steps: string[] = [];
    const r = await consolidate({ paths, config, mode: 'deterministic', force: true, now: () => new Date(day(3)), onProgress: (e) => steps.push(e.message ?? '') });
    const kept = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries;
    const archived = await readArchive(paths);
    // Nothing a person wrote is lost: every bullet is in MEMORY.md or in the archive.
    expect(kept.filter((e) => e.edited).length + archived.filter((e) => e.edited).length).toBe(250);
    expect(archived.length).toBeGreaterThan(0);
    // The newest run's important lesson stays; a person's oldest bullets go first; the summary line names every one.
    expect(kept.some((e) => !e.edited && e.text.includes(w(1)))).toBe(true);
    expect(r.archivedPersonal.length).toBe(archived.filter((e) => e.edited).length);
    for (const id of r.archived) expect(steps.at(-1)).toContain(id);
    expect(steps.at(-1)).toMatch(/moved to archive\.md by the size cap \(m-\w+ yours/);
    expect(estimateTokens(await readFile(paths.memoryMd, 'utf8'))).toBeLessThanOrEqual(3000 + 50);
    // Searchable and restorable.
    const victim = archived.find((e) => e.edited)!;
    const hits = await searchMemory(paths.workspaceDir, [victim.text.split(':')[0]!]);
    expect(hits.find((h) => h.entry.id === victim.id)?.archived).toBe(true);
    await restoreEntry(paths.workspaceDir, victim.id);
    expect(parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries.map((e) => e.id)).toContain(victim.id);
    expect((await readArchive(paths)).map((e) => e.id)).not.toContain(victim.id);
  });

  it('truncation never cuts inside a character (emoji, combining marks)', () => {
    const text = `${'a'.repeat(9)}👩‍👩‍👧‍👦 and more`;
    for (let n = 5; n < 16; n++) {
      const c = clip(text, n);
      expect(c).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      expect(Buffer.from(c, 'utf8').toString('utf8')).toBe(c);
    }
    expect(clipGraphemes('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
  });
});

describe('issue 12, kind 8: a prompt block that fits and tells', () => {
  it('a 300-run lineage keeps MEMORY.md bounded and the block within budget, and says what it left out', async () => {
    const paths = await tempWorkspace();
    const config = { maxRawMemories: 256, memoryMdTokens: 4000, summaryTokens: 600 };
    for (let i = 1; i <= 300; i++) {
      await writeRollout(paths, `r-${String(i).padStart(3, '0')}`, day(i), [raw(i % 3 ? 'pitfall' : 'procedure', LESSON(i), 3 + (i % 3))], { task: `build service ${i}` });
      if (i % 30 === 0) await consolidate({ paths, config, mode: 'deterministic', now: () => new Date(day(i + 1)) });
    }
    const md = await readFile(paths.memoryMd, 'utf8');
    expect(estimateTokens(md)).toBeLessThanOrEqual(4000);
    expect((await readArchive(paths)).length).toBeGreaterThan(0);
    const block = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: 600, task: 'build service 299' });
    expect(block.included.length).toBeGreaterThan(0);
    expect(estimateTokens(block.text)).toBeLessThanOrEqual(600);
    if (block.omitted.length) expect(block.text).toContain(`${block.omitted.length} more entr`);
    // Written for the same budget, the summary fits whole: the cap left room for the instructions.
    const full = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: 600 });
    expect(full.omitted).toEqual([]);
    const tight = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: 350 });
    expect(tight.omitted.length).toBeGreaterThan(0);
    expect(tight.text).toMatch(new RegExp(`${tight.omitted.length} more entr(y|ies) of the summary did not fit this block: search \`memories/MEMORY\\.md\``));
    expect(estimateTokens(tight.text)).toBeLessThanOrEqual(350);
  }, 120_000);

  it('keyword hints are real words, also for Chinese and Japanese tasks', () => {
    const zh = taskKeywords('把数据库连接改成 MySQL，并让测试通过');
    expect(zh.length).toBeGreaterThan(1);
    for (const k of zh) expect([...k].length).toBeLessThanOrEqual(6);
    expect(zh).toContain('mysql');
    const ja = taskKeywords('サムネイル生成を高速化してください');
    for (const k of ja) expect([...k].length).toBeLessThanOrEqual(6);
    expect(taskKeywords('Fix the `--dry-run` flag in src/bake/main.cpp')).toContain('--dry-run');
  });

  it('the token estimate does not undercount CJK text', () => {
    const zh = '数据库已经从迁移到了新的服务器上，所有的测试都需要重新运行一遍。'.repeat(10);
    expect(estimateTokens(zh)).toBeGreaterThanOrEqual([...zh].length);
    expect(estimateTokens('a'.repeat(400))).toBe(100);
  });
});
