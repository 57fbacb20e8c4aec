import { mkdtemp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { excludeFromGit, memoryPaths, mnemaraOwnedPaths } from '../../src/memory/layout.js';
import { learnTranscript } from '../../src/memory/learn.js';
import { CONFIG } from './helpers.js';

describe('memoryPaths', () => {
  it('resolves the default layout', () => {
    const p = memoryPaths('/w');
    expect(p.memoryMd).toBe('/w/memories/MEMORY.md');
    expect(p.summaryMd).toBe('/w/memories/memory_summary.md');
    expect(p.rolloutSummary('r1')).toBe('/w/memories/rollout_summaries/r1.md');
    expect(p.rawMemories('r1')).toBe('/w/memories/raw_memories/r1.md');
    expect(p.transcript('r1')).toBe('/w/sessions/r1.jsonl');
  });
  it('keeps two layouts apart', () => {
    const p = memoryPaths('/w', { memoriesDir: 'agents/rev/memories', sessionsDir: 'agents/rev/sessions' });
    expect(p.memoryMd).toBe('/w/agents/rev/memories/MEMORY.md');
  });
  it('refuses layouts outside the workspace and unsafe rollout ids', () => {
    expect(() => memoryPaths('/w', { memoriesDir: '../x', sessionsDir: 'sessions' })).toThrow(/memoriesDir must be a relative folder/);
    expect(() => memoryPaths('/w', { memoriesDir: '/etc', sessionsDir: 'sessions' })).toThrow(/relative/);
    expect(() => memoryPaths('/w', { memoriesDir: 'a/../../b', sessionsDir: 'sessions' })).toThrow(/relative/);
    const p = memoryPaths('/w');
    expect(() => p.rawMemories('../../etc/passwd')).toThrow(/not usable as a file name/);
    expect(() => p.transcript('.hidden')).toThrow(/not usable/);
  });
});

describe('excludeFromGit', () => {
  it('adds the layout to .git/info/exclude once, and does nothing outside git', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-layout-'));
    expect(await excludeFromGit(ws, { memoriesDir: 'memories', sessionsDir: 'sessions' })).toEqual([]);
    await mkdir(join(ws, '.git', 'info'), { recursive: true });
    await writeFile(join(ws, '.git', 'info', 'exclude'), '# git ls-files --others --exclude-from=.git/info/exclude\n*.log');
    expect(await excludeFromGit(ws, { memoriesDir: 'memories', sessionsDir: 'sessions' })).toEqual(['/memories/', '/sessions/']);
    expect(await excludeFromGit(ws, { memoriesDir: 'memories', sessionsDir: 'sessions' })).toEqual([]);
    const text = await readFile(join(ws, '.git', 'info', 'exclude'), 'utf8');
    expect(text).toBe('# git ls-files --others --exclude-from=.git/info/exclude\n*.log\n# mnemara memory layout\n/memories/\n/sessions/\n');
  });
});

describe('mnemaraOwnedPaths', () => {
  it('covers every file the pipeline writes, for the default and a custom layout', async () => {
    for (const layout of [{ memoriesDir: 'memories', sessionsDir: 'sessions' }, { memoriesDir: 'agents/rev/mem', sessionsDir: 'agents/rev/runs' }]) {
      const ws = await mkdtemp(join(tmpdir(), 'mnemara-owned-'));
      const owned = mnemaraOwnedPaths(layout);
      expect(owned).toContain(`${layout.memoriesDir}/MEMORY.md`);
      expect(owned).toContain(`${layout.memoriesDir}/archive.md`);
      await learnTranscript(join(defaultFixtures(), 'harbor-ledger-s3-export-region.json'), ws, { extractor: 'deterministic', config: { ...CONFIG, layout }, layout });
      const written = (await readdir(ws, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => relative(ws, join(e.parentPath, e.name)).split(sep).join('/'));
      expect(written.length).toBeGreaterThanOrEqual(5);
      for (const f of written) expect(owned.some((o) => f === o || f.startsWith(`${o}/`)), f).toBe(true);
    }
  });
});

