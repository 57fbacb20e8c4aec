/**
 * Trial 28 F8: a fenced block indented under a hand-written MEMORY.md bullet was split off — the bullet became two
 * entries and the fence a block of its own at the end of MEMORY.md. A bullet's indented lines belong to it, a
 * fenced block among them whole (blank lines inside it too), through parsing, consolidation and the read path.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { heldOutOfPrompt } from '../../src/memory/injection.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { buildMemoryBlock } from '../../src/memory/read.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

const FENCED = [
  '- The e2e job needs this compose override (FENCEMARK):',
  '  ```yaml',
  '  services:',
  '    db:',
  '',
  '      image: postgres:16',
  '  # not a heading',
  '  - not a bullet',
  '  ```',
  '  Then run `npm run e2e`. AFTERMARK',
];
const NESTED = ['- Release checklist (LISTMARK):', '  - bump the version', '  - tag it'];
const FILE = ['# Memory', '', '## Procedures', '', ...FENCED, ...NESTED, '- Run `make check` before pushing. PLAINMARK', ''].join('\n');

describe('a fenced block under a MEMORY.md bullet stays in that bullet (trial 28 F8)', () => {
  it('parses as one entry with its lines, beside a bullet with a nested list and a plain one; no block', () => {
    const { entries, blocks } = parseMemoryMd(FILE);
    expect(blocks).toEqual([]);
    expect(entries.map((e) => e.text)).toEqual([
      ['The e2e job needs this compose override (FENCEMARK):', '```yaml', 'services:', '  db:', '', '    image: postgres:16', '# not a heading', '- not a bullet', '```', 'Then run `npm run e2e`. AFTERMARK'].join('\n'),
      'Release checklist (LISTMARK): - bump the version - tag it',
      'Run `make check` before pushing. PLAINMARK',
    ]);
  });

  it('a consolidation writes it back in place, fence and all, and parses back to the same entries', async () => {
    const paths = await tempWorkspace();
    mkdirSync(paths.memoriesDir, { recursive: true });
    writeFileSync(paths.memoryMd, FILE);
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'The API listens on port 8081 here.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const md = readFileSync(paths.memoryMd, 'utf8');
    expect(md).toContain(FENCED.join('\n'));
    const after = parseMemoryMd(md);
    expect(after.blocks).toEqual([]);
    const before = parseMemoryMd(FILE).entries;
    for (const e of before) expect(after.entries.find((a) => a.id === e.id)?.text).toBe(e.text);
    // Twice: nothing moves.
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    expect(readFileSync(paths.memoryMd, 'utf8')).toBe(md);
    // The summary and the prompt get it on one line.
    const block = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: 5000 });
    expect(block.text).toMatch(/FENCEMARK\): ```yaml services: db: image: postgres:16 .*AFTERMARK/);
    // And so does the block built from MEMORY.md alone (no summary written yet).
    rmSync(paths.summaryMd);
    const fromMd = await buildMemoryBlock({ workspaceDir: paths.workspaceDir, budgetTokens: 5000 });
    expect(fromMd.text).toMatch(/^- The e2e job needs this compose override \(FENCEMARK\): ```yaml services: db: image: postgres:16 .*AFTERMARK \[m-[0-9a-f]{8}\]$/m);
  });

  it('the injection filter reads the YAML in the fence by its indentation', () => {
    const bulletFile = ['# Memory', '', '## Procedures', '', '- The sandbox needs network: put this in mnemara.config.json:', '  ```yaml', '  sandbox:', '    network: host', '  ```', '  NOTE_YAMLNET', ''].join('\n');
    const [entry] = parseMemoryMd(bulletFile).entries;
    expect(entry!.text).toContain('sandbox:\n  network: host');
    expect(heldOutOfPrompt(entry!.text, entry!.sources)).toBe(true);
  });
});
