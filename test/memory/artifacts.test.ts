import { describe, expect, it } from 'vitest';
import { parseRawMemories, parseRolloutSummary, renderRawMemories, renderRolloutSummary } from '../../src/memory/artifacts.js';
import { parseFrontMatter, renderFrontMatter } from '../../src/memory/front-matter.js';
import type { ArtifactFrontMatter, RawMemory, RolloutSummary } from '../../src/memory/types.js';

const meta: ArtifactFrontMatter = {
  rolloutId: '20261129T173000Z-ab12',
  time: '2026-11-29T17:30:00.000Z',
  outcome: 'completed',
  source: 'sessions/20261129T173000Z-ab12.jsonl',
  producer: 'model:claude-sonnet-4-5',
  promptVersion: 'phase1-v1',
};

const memories: RawMemory[] = [
  { kind: 'procedure', text: 'Run unit tests with `npm run test:unit`.', evidence: { lines: [12, 14], quote: 'npm test → EAI_AGAIN' }, importance: 4, keywords: ['npm', 'test'] },
  {
    kind: 'pitfall',
    text: 'Two lines:\n```json\n{"kind":"fact"}\n```\n## Task\n---',
    evidence: { lines: [3] },
    importance: 1,
    keywords: [],
  },
  { kind: 'preference', text: 'Schreibe Commit-Nachrichten im Imperativ — «Add», nicht «Added».', evidence: { lines: [40], quote: '"quoted" \\ back' }, importance: 5, keywords: ['commit'] },
];

describe('raw memories file', () => {
  it('round-trips RawMemory objects exactly, including hostile text', () => {
    const text = renderRawMemories(meta, memories);
    const back = parseRawMemories(text);
    expect(back.meta).toEqual(meta);
    expect(back.memories).toEqual(memories);
  });

  it('is readable: a heading and a quote per memory', () => {
    const text = renderRawMemories(meta, memories);
    expect(text).toContain('### 1. procedure · importance 4');
    expect(text).toContain('> Run unit tests with `npm run test:unit`.');
    expect(text.startsWith('---\nrolloutId: 20261129T173000Z-ab12\n')).toBe(true);
  });

  it('round-trips an empty extraction', () => {
    expect(parseRawMemories(renderRawMemories(meta, [])).memories).toEqual([]);
  });

  it('rejects a damaged file with the file name and a hint', () => {
    const text = renderRawMemories(meta, memories).replace('"importance": 4', '"importance": 9');
    expect(() => parseRawMemories(text, 'raw_memories/x.md')).toThrow(/raw_memories\/x\.md: raw memory 1 is invalid: importance/);
    expect(() => parseRawMemories('no front matter', 'f.md')).toThrow(/front matter/);
    const open = renderRawMemories(meta, memories.slice(0, 1)).replace(/```\n$/, '');
    expect(() => parseRawMemories(open, 'f.md')).toThrow(/not closed/);
  });
});

describe('rollout summary file', () => {
  const summary: RolloutSummary = {
    task: 'Fix the tooltip.\n## Tried\n\\## escaped already',
    tried: ['npm test (failed: EAI_AGAIN)', 'two\nlines', '- dash first'],
    worked: [],
    outcome: 'completed\n',
    filesChanged: ['src/a.ts', 'src/b.ts'],
  };

  it('round-trips, even when the task forges a heading', () => {
    const text = renderRolloutSummary(meta, summary);
    const back = parseRolloutSummary(text);
    expect(back.meta).toEqual(meta);
    expect(back.summary).toEqual(summary);
    expect(text).toContain('## Worked\n\n_none_');
  });
});

describe('front matter', () => {
  it('quotes values that would not read back bare', () => {
    const fields = { a: 'plain-value_1.2', b: 'has: colon', c: ' leading', d: 'line\nbreak', e: '"quoted"', f: '' };
    const text = renderFrontMatter(fields, 'body\n');
    expect(text).toContain('a: plain-value_1.2\n');
    expect(parseFrontMatter(text)).toEqual({ fields, body: 'body\n' });
  });
  it('returns null for text without front matter', () => {
    expect(parseFrontMatter('# title')).toBeNull();
    expect(parseFrontMatter('---\nno end')).toBeNull();
  });
});
