/** Step 1 without Docker: how the start is resolved, and the errors for bad starts. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import type { SnapshotStore } from '../../src/snapshot/types.js';
import { directoryLineage, lineageFromRemote, resolveStart, workspaceLineage } from '../../src/session/start.js';

let root: string;
let store: SnapshotStore;
let head: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mnemara-start-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.txt'), 'a');
  store = await openStore(join(root, 'store'));
  const m = await store.create({ dir: join(root, 'src') }, { lineage: 'repo', kind: 'workspace', parent: null });
  await store.advanceHead('repo', null, m.id);
  head = m.id;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('directoryLineage', () => {
  it("is the workspace directory's name, made a valid lineage, plus a hash of its absolute path", () => {
    expect(directoryLineage('/home/me/durations')).toMatch(/^durations-[0-9a-f]{8}$/);
    expect(directoryLineage('/home/me/My Repo (copy)/')).toMatch(/^My-Repo-copy-[0-9a-f]{8}$/);
    expect(directoryLineage('/srv/.hidden')).toMatch(/^hidden-[0-9a-f]{8}$/);
    // two projects in folders of the same name no longer share a lineage
    expect(directoryLineage('/home/a/app')).not.toBe(directoryLineage('/home/b/app'));
    expect(directoryLineage('/home/a/app/')).toBe(directoryLineage('/home/a/app'));
  });
});

describe('lineageFromRemote', () => {
  it('names host/owner/repo the same for every form of the URL', () => {
    for (const url of [
      'git@github.com:me/app.git',
      'https://github.com/me/app',
      'https://user:token@github.com/me/app.git',
      'ssh://git@github.com:22/me/app.git',
      'git://github.com/me/app.git/',
    ]) expect(lineageFromRemote(url), url).toBe('github.com/me/app');
    expect(lineageFromRemote('/srv/git/team/app.git')).toBe('local/team/app');
    expect(lineageFromRemote('file:///srv/git/app.git')).toBe('local/git/app');
    expect(lineageFromRemote('https://gitlab.example.org/group/sub/My Repo.git')).toBe('gitlab.example.org/group/sub/My-Repo');
    expect(lineageFromRemote('')).toBeNull();
  });

  it('a git checkout takes its lineage from origin, so a renamed or re-cloned checkout finds its memory', async () => {
    const a = join(root, 'checkout-a');
    const b = join(root, 'renamed-b');
    for (const d of [a, b]) {
      mkdirSync(d, { recursive: true });
      execFileSync('git', ['init', '-q', d]);
      execFileSync('git', ['-C', d, 'remote', 'add', 'origin', d === a ? 'git@github.com:me/app.git' : 'https://github.com/me/app']);
    }
    expect(await workspaceLineage(a)).toEqual({ lineage: 'github.com/me/app', source: 'git remote' });
    expect((await workspaceLineage(b)).lineage).toBe('github.com/me/app');
    const plain = join(root, 'plain');
    mkdirSync(plain, { recursive: true });
    expect(await workspaceLineage(plain)).toEqual({ lineage: directoryLineage(plain), source: 'directory' });
  });
});

describe('resolveStart', () => {
  it('takes the head of the lineage, or a fresh copy when it has none', async () => {
    expect(await resolveStart(store, { lineage: 'repo' })).toEqual({ kind: 'head', snapshotId: head, headAtStart: head });
    expect(await resolveStart(store, { lineage: 'new' })).toEqual({ kind: 'fresh', snapshotId: null, headAtStart: null });
  });

  it('takes --from over the head, and --memory-from from another lineage', async () => {
    expect(await resolveStart(store, { lineage: 'new', from: head })).toEqual({ kind: 'snapshot', snapshotId: head, headAtStart: null });
    expect(await resolveStart(store, { lineage: 'ci/x', memoryFrom: 'repo' })).toEqual({ kind: 'memory-from', snapshotId: head, headAtStart: null });
  });

  it('refuses bad starts with an error that says what to do', async () => {
    await expect(resolveStart(store, { lineage: '../etc' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(resolveStart(store, { lineage: 'repo', memoryFrom: 'a b' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // Trial 23 F16: a lineage `-rf` was made, and `lineage show -rf` read it as an option.
    await expect(resolveStart(store, { lineage: '-rf' })).rejects.toMatchObject({ code: 'INVALID_INPUT', hint: expect.stringContaining('not starting with "-"') });
    await expect(resolveStart(store, { lineage: 'repo', from: head, memoryFrom: 'repo' })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(resolveStart(store, { lineage: 'repo', memoryFrom: 'empty' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(resolveStart(store, { lineage: 'repo', from: '20200101T000000000Z-00000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
