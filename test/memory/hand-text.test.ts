/**
 * Issue 9, fourth new-user trial (high): text a person wrote into MEMORY.md outside mnemara's sections — a bullet
 * under the `# Memory` title, a paragraph without a bullet — was dropped without a word at the next consolidation
 * (the docs promise "your text is kept"). Every line a person wrote is now an entry of theirs, or, when they gave it
 * a structure of their own (issue 10, second trial: headings, code blocks and numbered lists were flattened into
 * one-line Facts bullets), a block kept verbatim where it was.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd, renderMemoryMd } from '../../src/memory/memory-md.js';
import { concurrentEdits } from '../../src/memory/phase2/concurrent-edits.js';
import { forgetEntry } from '../../src/memory/handbook.js';
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
    expect(readFileSync(paths.memoryMd, 'utf8')).toContain('## Team notes\n* Ask Dana before touching billing/.\n');
    expect(texts.some((t) => t.includes('docker compose up db'))).toBe(true);
    expect(kept.filter((e) => !e.text.includes('docker compose')).every((e) => e.edited)).toBe(true);
    expect(kept.find((e) => e.text.startsWith('Run `make gen`'))!.kind).toBe('procedure');
  });
  it("mnemara's own lines are never taken for a person's", () => {
    const md = '# Memory\n\n<!-- mnemara:memory format=1 consolidated=2026-01-01T00:00:00.000Z producer=deterministic prompt=consolidate-v1 -->\n> Lessons from earlier runs.\n> Keep the note.\n\n_No lessons yet._\n';
    expect(parseMemoryMd(md).entries).toEqual([]);
  });

  const STRUCTURED = [
    '# Memory',
    '',
    '## Release runbook',
    '',
    '1. Bump the version in `package.json`.',
    '2. Run the release script:',
    '',
    '   ```sh',
    '   ./scripts/release.sh --dry-run',
    '   ```',
    '3. Tag it.',
    '',
    '```bash',
    '# a comment in code, not a heading',
    '- not a bullet either',
    '```',
    '',
    '### Who to ask',
    '',
    '| area | person |',
    '| --- | --- |',
    '| billing | Dana |',
    '',
    '## Pitfalls',
    '',
    '- The e2e suite needs `PLAYWRIGHT_BROWSERS_PATH=0`.',
    '',
    '~~~',
    'export NODE_OPTIONS=--max-old-space-size=4096',
    '~~~',
    '',
    '# Notes in Deutsch: Zugangsdaten',
    '',
    'Das Passwort für staging ist password=Sup3rGeheim!x9 (bitte nicht teilen).',
    '',
  ].join('\n');

  it('own headings, code blocks, numbered lists, tables and sub-headings come back verbatim, where they were', async () => {
    const paths = await tempWorkspace();
    mkdirSync(paths.memoriesDir, { recursive: true });
    writeFileSync(paths.memoryMd, STRUCTURED);
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('pitfall', 'Run `npm ci` before the tests: the lockfile pins node-gyp.', 4)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const md = readFileSync(paths.memoryMd, 'utf8');
    const runbook = STRUCTURED.slice(STRUCTURED.indexOf('## Release runbook'), STRUCTURED.indexOf('\n\n## Pitfalls'));
    expect(md).toContain(runbook);
    expect(md).toContain('~~~\nexport NODE_OPTIONS=--max-old-space-size=4096\n~~~');
    // Before the first mnemara section it was, before it it stays; the fence in Pitfalls stays in Pitfalls.
    expect(md.indexOf('## Release runbook')).toBeLessThan(md.indexOf('## Pitfalls'));
    expect(md.indexOf('~~~')).toBeGreaterThan(md.indexOf('## Pitfalls'));
    expect(md.indexOf('~~~')).toBeLessThan(md.indexOf('# Notes in Deutsch'));
    // Verbatim is not unredacted.
    expect(md).toContain('# Notes in Deutsch: Zugangsdaten');
    expect(md).not.toContain('Sup3rGeheim');
    const { entries } = parseMemoryMd(md);
    expect(entries.map((e) => e.text).sort()).toEqual(['Run `npm ci` before the tests: the lockfile pins node-gyp.', 'The e2e suite needs `PLAYWRIGHT_BROWSERS_PATH=0`.']);
    expect(entries.some((e) => /release\.sh|not a bullet|Dana/.test(e.text))).toBe(false);
    expect(md.endsWith('\n')).toBe(true);
    // The summary tells a run where the person's sections are.
    expect(readFileSync(paths.summaryMd, 'utf8')).toContain('“Release runbook”');
    // Stable: rendering what was parsed gives the same file.
    const again = parseMemoryMd(md);
    expect(renderMemoryMd(again.entries, again.info!, again.blocks)).toBe(md);
  });

  it('a block edited while phase 2 runs is merged, and forget keeps the blocks', async () => {
    const edited = STRUCTURED.replace('3. Tag it.', '3. Tag it and push the tag.');
    const edits = concurrentEdits(STRUCTURED, edited, '2026-11-02T00:00:00Z');
    expect(edits?.blocks?.[0]!.lines).toContain('3. Tag it and push the tag.');
    expect(concurrentEdits(STRUCTURED, STRUCTURED + '\n', '2026-11-02T00:00:00Z')).toBeNull();

    const paths = await tempWorkspace();
    mkdirSync(paths.memoriesDir, { recursive: true });
    writeFileSync(paths.memoryMd, STRUCTURED);
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'The API listens on port 8081 in dev.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const id = parseMemoryMd(readFileSync(paths.memoryMd, 'utf8')).entries.find((e) => e.text.includes('8081'))!.id;
    await forgetEntry(paths.workspaceDir, id, CONFIG);
    const md = readFileSync(paths.memoryMd, 'utf8');
    expect(md).not.toContain('8081');
    expect(md).toContain('| billing | Dana |');
    expect(md).toContain('2. Run the release script:');
  });
});

describe('a MEMORY.md with only a person\'s sections', () => {
  it('gets no "_No lessons yet._" line, and an old one is not kept as the person\'s text (it was added once per run)', () => {
    const md = '# Memory\n\n## Runbook\n\n1. Deploy.\n2. Tag.\n\n_No lessons yet._\n';
    const once = parseMemoryMd(md);
    const rendered = renderMemoryMd(once.entries, { consolidatedAt: 'x', producer: 'deterministic', promptVersion: 'v' }, once.blocks);
    expect(rendered).not.toContain('_No lessons yet._');
    const twice = parseMemoryMd(rendered);
    expect(renderMemoryMd(twice.entries, { consolidatedAt: 'x', producer: 'deterministic', promptVersion: 'v' }, twice.blocks)).toBe(rendered);
    expect(rendered).toContain('## Runbook\n\n1. Deploy.\n2. Tag.\n');
  });
});
