import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { openStore } from '../../src/snapshot/index.js';
import { workspaceLineage } from '../../src/session/default-lineage.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(defaultFixtures(), 'sundial-tz-offset-without-colon.json');

async function cli(args: string[], home: string) {
  return execa('node', ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), ...args], { reject: false, env: { MNEMARA_HOME: home, ANTHROPIC_API_KEY: '' }, cwd: ROOT });
}

// Each test runs the CLI several times in a row, and each start compiles the sources through tsx (~5 s on a
// loaded 2-core machine): the suite's 60 s default is too tight for seven starts.
// Thirteenth trial F9: `learn -w DIR` on a directory whose lineage has a head wrote the lessons into the checkout,
// where the next run (which starts from the head) never read them. They go onto the head now, as a memory snapshot.
describe('mnemara learn into a lineage', () => {
  it('learns into the head of -w DIR\'s lineage (or --lineage NAME), not into the checkout', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'mnemara-cli-'));
    const home = join(tmp, 'home');
    const ws = join(tmp, 'ws');
    await mkdir(ws);
    await writeFile(join(ws, 'tz.py'), 'def offset(s): ...\n');
    const store = await openStore(join(home, 'store'));
    const { lineage } = await workspaceLineage(ws);
    const first = await store.create({ dir: ws }, { lineage, kind: 'workspace' });
    await store.advanceHead(lineage, null, first.id);

    const learned = await cli(['learn', FIXTURE, '--workspace', ws, '--json'], home);
    expect(learned.exitCode, learned.stderr).toBe(0);
    const r = JSON.parse(learned.stdout) as { lineage: string; head: string; pipeline: { added: string[] } };
    expect(r.lineage).toBe(lineage);
    expect(r.pipeline.added).toHaveLength(2);
    expect(await store.getHead(lineage)).toBe(r.head);
    expect((await readdir(ws)).sort()).toEqual(['tz.py']);
    const shown = JSON.parse((await cli(['memory', 'show', '--lineage', lineage, '--json'], home)).stdout) as { entries: unknown[] };
    expect(shown.entries).toHaveLength(2);
    const human = await cli(['learn', FIXTURE, '--lineage', lineage], home);
    expect(human.stdout).toContain(`learned into lineage ${lineage}`);
    expect(human.stdout).toContain('already learned');
    await rm(tmp, { recursive: true, force: true });
  }, 180_000);
});

describe('mnemara learn / memory (command line)', { timeout: 180_000 }, () => {
  it('learns a fixture, shows it (workspace and lineage), forgets an entry', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'mnemara-cli-'));
    const home = join(tmp, 'home');
    const ws = join(tmp, 'ws');
    await mkdir(ws);
    const learned = await cli(['learn', FIXTURE, '--workspace', ws, '--json'], home);
    expect(learned.exitCode).toBe(0);
    const result = JSON.parse(learned.stdout);
    expect(result).toMatchObject({ files: [{ format: 'anthropic-messages', status: 'learned', rollouts: [{ rolloutId: 'sundial-tz-offset-without-colon', status: 'new' }] }], pipeline: { consolidated: true } });
    expect(result.pipeline.added).toHaveLength(2);

    const shown = await cli(['memory', 'show', '--workspace', ws, '--json'], home);
    expect(shown.exitCode).toBe(0);
    const overview = JSON.parse(shown.stdout);
    expect(overview.entries.map((e: { kind: string }) => e.kind)).toEqual(['preference', 'preference']);
    expect(overview.entries.some((e: { text: string }) => /parametrize/.test(e.text))).toBe(true);

    const human = await cli(['memory', 'show', '--workspace', ws], home);
    expect(human.stdout).toContain('Preferences (from the user)');

    // The same memory through a lineage head in the snapshot store.
    const store = await openStore(join(home, 'store'));
    const m = await store.create({ dir: ws }, { lineage: 'sundial', kind: 'memory', scope: ['memories', 'sessions'], parent: null });
    await store.advanceHead('sundial', null, m.id);
    const viaLineage = await cli(['memory', 'show', '--lineage', 'sundial', '--json'], home);
    expect(viaLineage.exitCode).toBe(0);
    expect(JSON.parse(viaLineage.stdout).entries).toEqual(overview.entries);
    const missing = await cli(['memory', 'show', '--lineage', 'nope', '--json'], home);
    expect(missing.exitCode).toBe(2);
    expect(JSON.parse(missing.stdout).error.code).toBe('NOT_FOUND');

    const id = overview.entries.find((e: { text: string }) => /imperative/.test(e.text)).id;
    const forgot = await cli(['memory', 'forget', id, '--workspace', ws], home);
    expect(forgot.exitCode).toBe(0);
    const search = await cli(['memory', 'search', 'imperative', '--workspace', ws, '--json'], home);
    expect(search.exitCode).toBe(1);
    expect(JSON.parse(search.stdout).hits).toEqual([]);
  }, 180_000);

  it('refuses a workspace or transcript path that is not what it should be: exit 2, a hint, nothing created', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'mnemara-cli-'));
    const home = join(tmp, 'home');
    const missing = join(tmp, 'typo');
    const file = join(tmp, 'file.txt');
    await writeFile(file, 'not a directory\n');
    const cases: Array<{ args: string[]; code: string }> = [
      { args: ['learn', FIXTURE, '--workspace', missing], code: 'NOT_FOUND' },
      { args: ['memory', 'show', '--workspace', missing], code: 'NOT_FOUND' },
      { args: ['memory', 'search', 'tz', '--workspace', missing], code: 'NOT_FOUND' },
      { args: ['memory', 'forget', 'm-00000000', '--workspace', missing], code: 'NOT_FOUND' },
      { args: ['memory', 'consolidate', '--workspace', missing], code: 'NOT_FOUND' },
      { args: ['memory', 'show', '--workspace', file], code: 'INVALID_INPUT' },
      { args: ['learn', tmp, '--workspace', tmp], code: 'INVALID_INPUT' },
    ];
    const results = await Promise.all(cases.map((c) => cli([...c.args, '--json'], home)));
    for (const [i, r] of results.entries()) {
      const what = cases[i]!.args.slice(0, 2).join(' ');
      expect(r.exitCode, what).toBe(2);
      expect(JSON.parse(r.stdout).error, what).toMatchObject({ code: cases[i]!.code, hint: expect.any(String) });
      expect(r.stderr, what).not.toMatch(/\n\s+at /);
    }
    expect((await readdir(tmp)).sort()).toEqual(['file.txt']);
    await rm(tmp, { recursive: true, force: true });
  }, 180_000);
});
