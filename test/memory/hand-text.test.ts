/**
 * Issue 9, fourth new-user trial (high): text a person wrote into MEMORY.md outside mnemara's sections — a bullet
 * under the `# Memory` title, a paragraph without a bullet — was dropped without a word at the next consolidation
 * (the docs promise "your text is kept"). Every line a person wrote is now an entry of theirs.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

describe("a person's text anywhere in MEMORY.md is kept", () => {
  it('a bullet under the title, a paragraph, a bullet under a heading of their own', async () => {
    const paths = await tempWorkspace();
    mkdirSync(paths.memoriesDir, { recursive: true });
    writeFileSync(paths.memoryMd, '# Memory\n- Always run make check.\n\nThe staging DB is reset every night,\nso never rely on its data.\n\n## Procedures\n\nRun `make gen` after editing proto files.\n\n## Team notes\n* Ask Dana before touching billing/.\n');
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'Integration tests need `docker compose up db` first.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const kept = parseMemoryMd(readFileSync(paths.memoryMd, 'utf8')).entries;
    const texts = kept.map((e) => e.text);
    expect(texts).toContain('Always run make check.');
    expect(texts).toContain('The staging DB is reset every night, so never rely on its data.');
    expect(texts).toContain('Run `make gen` after editing proto files.');
    expect(texts).toContain('Ask Dana before touching billing/.');
    expect(texts.some((t) => t.includes('docker compose up db'))).toBe(true);
    expect(kept.filter((e) => !e.text.includes('docker compose')).every((e) => e.edited)).toBe(true);
    expect(kept.find((e) => e.text.startsWith('Run `make gen`'))!.kind).toBe('procedure');
  });
  it("mnemara's own lines are never taken for a person's", () => {
    const md = '# Memory\n\n<!-- mnemara:memory format=1 consolidated=2026-01-01T00:00:00.000Z producer=deterministic prompt=consolidate-v1 -->\n> Lessons from earlier runs.\n> Keep the note.\n\n_No lessons yet._\n';
    expect(parseMemoryMd(md).entries).toEqual([]);
  });
});
