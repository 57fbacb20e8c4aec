import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { excludeFromGit, memoryPaths } from '../../src/memory/layout.js';

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
