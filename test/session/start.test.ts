/** Step 1 without Docker: how the start is resolved, and the errors for bad starts. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import type { SnapshotStore } from '../../src/snapshot/types.js';
import { defaultLineage, resolveStart } from '../../src/session/start.js';

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

describe('defaultLineage', () => {
  it("is the workspace directory's name, made a valid lineage", () => {
    expect(defaultLineage('/home/me/durations')).toBe('durations');
    expect(defaultLineage('/home/me/My Repo (copy)/')).toBe('My-Repo-copy');
    expect(defaultLineage('/srv/.hidden')).toBe('hidden');
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
    await expect(resolveStart(store, { lineage: 'repo', from: head, memoryFrom: 'repo' })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(resolveStart(store, { lineage: 'repo', memoryFrom: 'empty' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(resolveStart(store, { lineage: 'repo', from: '20200101T000000000Z-00000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
