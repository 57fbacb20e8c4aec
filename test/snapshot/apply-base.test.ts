/**
 * New-user trial 28 F0 (high, data lost): after one apply, the next `apply` deleted host files the user created
 * between that apply and the next run's start. The run started from the lineage head, not from the directory, so
 * it never saw them; the patch (host against snapshot) called them "removed" and the mtime guard let files older
 * than the run's start through. Apply now takes the tree the run started from (the snapshot the first run not yet
 * applied started from) as the base: a path is the run's to delete or overwrite only as the run changed it from
 * there. Host files the base lacks are kept and named (`keptHost`), the user's edits of files the run left alone
 * too (`keptEdits`), and a path both changed is refused (HOST_CHANGED) unless --force. Real store, real git.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applySnapshot, describeApply } from '../../src/cli/commands/apply.js';
import { applyToHost } from '../../src/snapshot/apply.js';
import { openStore } from '../../src/snapshot/index.js';
import { testConfig } from '../session/harness.js';
import { tempDir } from './helpers.js';

const LAYOUT = { layoutDirs: ['memories', 'sessions'] };
const rolloutIdAt = (ms: number): string => `${new Date(ms).toISOString().replace(/[-:]/g, '').replace('.', '')}-0a1b2c3d4e`;
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

function project(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'app.js'), 'app\n');
  writeFileSync(join(dir, 'README.md'), 'readme\n');
}

/** A copy of the project as a run leaves it: `project`, then `change`. */
function ranTree(change: (dir: string) => void): string {
  const d = tempDir();
  project(d);
  change(d);
  return d;
}

/** Home, config and store; run 1 (from the host) added h4.txt and was applied to `host`. */
async function afterFirstApply() {
  const home = tempDir();
  const config = testConfig(home, 'http://127.0.0.1:9');
  const store = await openStore(join(home, 'store'));
  const host = tempDir();
  project(host);
  const r1 = rolloutIdAt(Date.now());
  await tick();
  const s1 = await store.create({ dir: ranTree((d) => writeFileSync(join(d, 'h4.txt'), 'h4\n')) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1] });
  expect(await applySnapshot(config, s1.id, host, {})).toMatchObject({ applied: true, added: ['h4.txt'] });
  await tick();
  return { config, store, host, r1, s1 };
}

describe('apply keeps host files the run never saw (trial 28 F0)', () => {
  it("the trial: files the user adds after an apply survive the next run's apply, in --check, apply and --json", async () => {
    const { config, store, host, r1, s1 } = await afterFirstApply();
    writeFileSync(join(host, 'notes.local'), 'my local notes\n');
    writeFileSync(join(host, '.env.local'), 'SECRET=1\n');
    mkdirSync(join(host, 'mine', 'deep'), { recursive: true });
    writeFileSync(join(host, 'mine', 'deep', 'keep.log'), 'log\n');
    mkdirSync(join(host, 'emptymine'));
    await tick();
    // Run 2 starts from the head (s1), not from the directory: adds touched.txt.
    const r2 = rolloutIdAt(Date.now());
    const s2 = await store.create({ dir: ranTree((d) => { writeFileSync(join(d, 'h4.txt'), 'h4\n'); writeFileSync(join(d, 'touched.txt'), 'hi\n'); }) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1, r2], parent: s1.id });

    const check = await applySnapshot(config, s2.id, host, { check: true });
    expect(check).toMatchObject({ applied: false, added: ['touched.txt'], changed: [], removed: [], keptHost: ['.env.local', 'mine/deep/keep.log', 'notes.local'] });
    expect(check.dirsRemoved).toBeUndefined();
    const text = describeApply(check);
    expect(text).toMatch(/^would apply .*: 1 added, 0 changed, 0 removed$/m);
    expect(text).toContain('kept 3 file(s) the run never saw (not in the snapshot it started from): .env.local, mine/deep/keep.log, notes.local');
    expect(text).not.toMatch(/^ {2}D /m);
    expect(JSON.parse(JSON.stringify(check)).keptHost).toEqual(['.env.local', 'mine/deep/keep.log', 'notes.local']);

    const r = await applySnapshot(config, s2.id, host, {});
    expect(r).toMatchObject({ applied: true, added: ['touched.txt'], removed: [], keptHost: ['.env.local', 'mine/deep/keep.log', 'notes.local'] });
    expect(r.warnings).toBeUndefined();
    expect(readFileSync(join(host, 'notes.local'), 'utf8')).toBe('my local notes\n');
    expect(readFileSync(join(host, '.env.local'), 'utf8')).toBe('SECRET=1\n');
    expect(readFileSync(join(host, 'mine', 'deep', 'keep.log'), 'utf8')).toBe('log\n');
    expect(existsSync(join(host, 'emptymine'))).toBe(true);
    expect(readFileSync(join(host, 'touched.txt'), 'utf8')).toBe('hi\n');
  });

  it('a file the run really deleted (its start held it) is still deleted', async () => {
    const { config, store, host, r1, s1 } = await afterFirstApply();
    writeFileSync(join(host, 'notes.local'), 'mine\n');
    await tick();
    const r2 = rolloutIdAt(Date.now());
    // Run 2 removed h4.txt and src/app.js (both in s1, where it started).
    const s2 = await store.create({ dir: ranTree((d) => rmSync(join(d, 'src'), { recursive: true })) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1, r2], parent: s1.id });
    const r = await applySnapshot(config, s2.id, host, {});
    expect(r).toMatchObject({ applied: true, removed: ['h4.txt', 'src/app.js'], keptHost: ['notes.local'] });
    expect(existsSync(join(host, 'h4.txt'))).toBe(false);
    expect(existsSync(join(host, 'src'))).toBe(false);
    expect(readFileSync(join(host, 'notes.local'), 'utf8')).toBe('mine\n');
  });

  it("keeps the user's edit of a file the run left alone, and refuses one both changed unless --force", async () => {
    const { config, store, host, r1, s1 } = await afterFirstApply();
    writeFileSync(join(host, 'README.md'), 'readme\nmine\n');
    writeFileSync(join(host, 'src', 'app.js'), 'app\nmine\n');
    await tick();
    const r2 = rolloutIdAt(Date.now());
    const s2 = await store.create({ dir: ranTree((d) => { writeFileSync(join(d, 'h4.txt'), 'h4\n'); writeFileSync(join(d, 'src', 'app.js'), 'app\nrun\n'); }) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1, r2], parent: s1.id });
    const refused = applySnapshot(config, s2.id, host, {});
    await expect(refused).rejects.toMatchObject({ code: 'HOST_CHANGED' });
    await expect(refused).rejects.toThrow(/both changed 1 file\(s\).*: src\/app\.js$/);
    expect(readFileSync(join(host, 'src', 'app.js'), 'utf8')).toBe('app\nmine\n');
    const r = await applySnapshot(config, s2.id, host, { force: true });
    expect(r).toMatchObject({ applied: true, changed: ['src/app.js'], keptEdits: ['README.md'] });
    expect(describeApply(r)).toContain('kept 1 file(s) changed here that the run did not change: README.md');
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toBe('readme\nmine\n');
    expect(readFileSync(join(host, 'src', 'app.js'), 'utf8')).toBe('app\nrun\n');
  });

  it('a user file older than the first run, which started from a head made elsewhere (no apply record), is kept', async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const host = tempDir();
    project(host);
    writeFileSync(join(host, 'local.cfg'), 'mine\n');
    const old = new Date(Date.now() - 3_600_000);
    for (const p of ['local.cfg', 'README.md', 'src/app.js', 'src', '.']) utimesSync(join(host, p), old, old);
    // The lineage head names no run (made from another checkout); the first run started from it, added x.txt.
    const h0 = await store.create({ dir: ranTree(() => undefined) }, { lineage: 'shared', kind: 'workspace' });
    const s1 = await store.create({ dir: ranTree((d) => writeFileSync(join(d, 'x.txt'), 'x\n')) }, { lineage: 'shared', kind: 'workspace', rolloutIds: [rolloutIdAt(Date.now())], parent: h0.id });
    const r = await applyToHost(store, s1.id, host, LAYOUT);
    expect(r).toMatchObject({ applied: true, added: ['x.txt'], removed: [], keptHost: ['local.cfg'] });
    expect(readFileSync(join(host, 'local.cfg'), 'utf8')).toBe('mine\n');
  });

  it("without a base (the run started from the host directory) today's guard holds", async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const host = tempDir();
    project(host);
    const s1 = await store.create({ dir: ranTree((d) => writeFileSync(join(d, 'x.txt'), 'x\n')) }, { lineage: 'fresh', kind: 'workspace', rolloutIds: [rolloutIdAt(Date.now() - 1000)] });
    writeFileSync(join(host, 'late.txt'), 'mine\n');
    await expect(applyToHost(store, s1.id, host, LAYOUT)).rejects.toMatchObject({ code: 'HOST_CHANGED' });
    expect(existsSync(join(host, 'late.txt'))).toBe(true);
  });
});

/**
 * Round 28 follow-up: the "added" side of the three-way was not scoped. A file (or directory) in the base and in
 * the snapshot, left alone by the run, that the user deleted from the host was written back by apply; it now stays
 * deleted (`keptDeleted`), as a user's edit does. A file the run changed and the user deleted is a conflict.
 */
describe("apply keeps the user's deletions of what the run left alone", () => {
  it('a deleted file and a removed directory stay deleted, in --check, apply, text and --json', async () => {
    const { config, store, host, r1, s1 } = await afterFirstApply();
    mkdirSync(join(host, 'docs', 'empty'), { recursive: true });
    writeFileSync(join(host, 'docs', 'guide.md'), 'guide\n');
    // The first apply's record holds r1: make docs/ part of what the next run starts from (s1b, applied too).
    const s1b = await store.create({ dir: ranTree((d) => { writeFileSync(join(d, 'h4.txt'), 'h4\n'); mkdirSync(join(d, 'docs', 'empty'), { recursive: true }); writeFileSync(join(d, 'docs', 'guide.md'), 'guide\n'); }) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1], parent: s1.id });
    await tick();
    rmSync(join(host, 'README.md'));
    rmSync(join(host, 'docs'), { recursive: true });
    await tick();
    const r2 = rolloutIdAt(Date.now());
    // Run 2 started from s1b, left README.md and docs/ alone, added new.txt.
    const s2 = await store.create({ dir: ranTree((d) => { writeFileSync(join(d, 'h4.txt'), 'h4\n'); mkdirSync(join(d, 'docs', 'empty'), { recursive: true }); writeFileSync(join(d, 'docs', 'guide.md'), 'guide\n'); writeFileSync(join(d, 'new.txt'), 'new\n'); }) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1, r2], parent: s1b.id });

    const check = await applySnapshot(config, s2.id, host, { check: true });
    expect(check).toMatchObject({ applied: false, added: ['new.txt'], changed: [], removed: [], keptDeleted: ['README.md', 'docs/'] });
    expect(check.dirsAdded).toBeUndefined();
    expect(describeApply(check)).toContain("kept 2 deletion(s) made here of what the run did not change: README.md, docs/");
    const r = await applySnapshot(config, s2.id, host, {});
    expect(r).toMatchObject({ applied: true, added: ['new.txt'], keptDeleted: ['README.md', 'docs/'] });
    expect(existsSync(join(host, 'README.md'))).toBe(false);
    expect(existsSync(join(host, 'docs'))).toBe(false);
    expect(readFileSync(join(host, 'new.txt'), 'utf8')).toBe('new\n');
  });

  it('a file the run changed and the user deleted is refused (HOST_CHANGED); --force writes the run\'s', async () => {
    const { config, store, host, r1, s1 } = await afterFirstApply();
    rmSync(join(host, 'src', 'app.js'));
    await tick();
    const r2 = rolloutIdAt(Date.now());
    const s2 = await store.create({ dir: ranTree((d) => { writeFileSync(join(d, 'h4.txt'), 'h4\n'); writeFileSync(join(d, 'src', 'app.js'), 'app\nrun\n'); }) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1, r2], parent: s1.id });
    await expect(applySnapshot(config, s2.id, host, { check: true })).rejects.toThrow(/both changed 1 file\(s\).*: src\/app\.js$/);
    expect(existsSync(join(host, 'src', 'app.js'))).toBe(false);
    const r = await applySnapshot(config, s2.id, host, { force: true });
    expect(r).toMatchObject({ applied: true, added: ['src/app.js'] });
    expect(r.keptDeleted).toBeUndefined();
    expect(readFileSync(join(host, 'src', 'app.js'), 'utf8')).toBe('app\nrun\n');
  });
});

/**
 * A `--memory-from` start on the run's own lineage: the workspace is a copy of the host directory and the parent
 * (the head) only gave the memory. runBase took the parent for the tree the run started from, so a file the user
 * had made before the run, which the run then deleted, was "never seen by the run" and kept. The session now marks
 * such a snapshot (`workspaceFrom: 'host'`) and runBase knows no base for it (the mtime guard holds).
 */
describe('a run that started from a copy of the host directory (--memory-from on its own lineage)', () => {
  it('has no base: its deletion of a file the parent lacks is applied, not kept', async () => {
    const { config, store, host, r1, s1 } = await afterFirstApply();
    writeFileSync(join(host, 'scratch.txt'), 'made after the apply, before the run\n');
    await tick();
    const r2 = rolloutIdAt(Date.now());
    // The run's workspace was the host directory (scratch.txt included); it deleted scratch.txt and added done.txt.
    const s2 = await store.create({ dir: ranTree((d) => { writeFileSync(join(d, 'h4.txt'), 'h4\n'); writeFileSync(join(d, 'done.txt'), 'done\n'); }) }, { lineage: 'odd3', kind: 'workspace', rolloutIds: [r1, r2], parent: s1.id, workspaceFrom: 'host' });
    expect((await store.get(s2.id)).workspaceFrom).toBe('host');
    const r = await applySnapshot(config, s2.id, host, {});
    expect(r).toMatchObject({ applied: true, added: ['done.txt'], removed: ['scratch.txt'] });
    expect(r.keptHost).toBeUndefined();
    expect(existsSync(join(host, 'scratch.txt'))).toBe(false);
  });
});
