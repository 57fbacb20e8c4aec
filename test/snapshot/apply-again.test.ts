/**
 * Trial 21, F1 and F5 (both low): a second `mnemara apply` right after one that worked refused, calling the files
 * the first apply wrote "your changes" and suggesting --force; and links the agent made to a host path
 * (`-> /etc/hostname`, `-> ../../outside`) were written into the checkout without a word. Real store, real git.
 */
import { mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applySnapshot } from '../../src/cli/commands/apply.js';
import { applyToHost, linksOutside, unchangedSince } from '../../src/snapshot/apply.js';
import { testConfig } from '../session/harness.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

const LAYOUT = { layoutDirs: ['memories', 'sessions'] };
const rolloutIdAt = (ms: number): string => `${new Date(ms).toISOString().replace(/[-:]/g, '').replace('.', '')}-0a1b2c3d4e`;

function tree(dir: string): void {
  mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'src', 'lib', 'a.js'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'README.md'), 'readme\n');
}

describe('apply', () => {
  it('a second apply of the same snapshot has nothing to do, and says so', async () => {
    const host = tempDir();
    tree(host);
    const ran = tempDir();
    tree(ran);
    writeFileSync(join(ran, 'README.md'), 'readme\nfixed\n');
    writeFileSync(join(ran, 'src', 'lib', 'b.js'), 'export const b = 2;\n');
    await new Promise((r) => setTimeout(r, 20));
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: ran }, { lineage: 'again', kind: 'workspace', rolloutIds: [rolloutIdAt(Date.now())] });
    const first = await applyToHost(store, m.id, host, LAYOUT);
    expect(first).toMatchObject({ applied: true, added: ['src/lib/b.js'], changed: ['README.md'] });
    const second = await applyToHost(store, m.id, host, LAYOUT);
    expect(second).toMatchObject({ applied: false, added: [], changed: [], removed: [] });
    // A change of the user's after that is still guarded.
    writeFileSync(join(host, 'README.md'), 'readme\nmine\n');
    await expect(applyToHost(store, m.id, host, LAYOUT)).rejects.toMatchObject({ code: 'HOST_CHANGED' });
  });

  it('names the links it writes that point outside the directory', async () => {
    const host = tempDir();
    tree(host);
    const ran = tempDir();
    tree(ran);
    symlinkSync('/etc/hostname', join(ran, 'host-file'));
    symlinkSync('../../../outside', join(ran, 'src', 'lib', 'up'));
    symlinkSync('../README.md', join(ran, 'src', 'readme-link'));
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: ran }, { lineage: 'links', kind: 'workspace' });
    const r = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(r.applied).toBe(true);
    expect(readlinkSync(join(host, 'host-file'))).toBe('/etc/hostname');
    expect(r.linksOutside).toEqual([
      { path: 'host-file', target: '/etc/hostname' },
      { path: 'src/lib/up', target: '../../../outside' },
    ]);
  });

  it('reads link targets from a git patch', () => {
    const patch = [
      'diff --git a/l1 b/l1\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/l1\n@@ -0,0 +1 @@\n+/work/x\n\\ No newline at end of file\n',
      'diff --git a/d/l2 b/d/l2\nnew file mode 120000\nindex 0000000..2222222\n--- /dev/null\n+++ b/d/l2\n@@ -0,0 +1 @@\n+../sibling\n\\ No newline at end of file\n',
      'diff --git a/f b/f\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+/not/a/link\n',
    ].join('');
    expect(linksOutside(patch)).toEqual([{ path: 'l1', target: '/work/x' }]);
  });
});

/**
 * Trial 25 N7 (medium): after one `mnemara apply`, every later apply of the lineage refused: the host-changed check
 * compared with the lineage's first run, so the files that apply wrote looked like the user's edits. The apply is
 * recorded in the home; the next one judges from the first run the directory does not hold yet.
 */
describe('apply after apply', () => {
  it('unchangedSince: from the first run the last apply did not hold, never before it ended', () => {
    const [t1, t2, t3] = [Date.UTC(2026, 11, 6, 2, 0), Date.UTC(2026, 11, 6, 3, 0), Date.UTC(2026, 11, 6, 4, 0)];
    const ids = [rolloutIdAt(t1), rolloutIdAt(t2), rolloutIdAt(t3)];
    expect(unchangedSince(ids)).toBe(t1);
    expect(unchangedSince(ids, { rolloutIds: ids.slice(0, 1), at: t1 + 5 })).toBe(t2);
    // A run that started before the apply ended: the apply's own writes are no change of the user's.
    expect(unchangedSince(ids, { rolloutIds: ids.slice(0, 1), at: t2 + 5 })).toBe(t2 + 5);
    expect(unchangedSince(ids, { rolloutIds: ids, at: t3 + 9 })).toBe(t3 + 9);
    // A record of another history (a rollout this snapshot does not hold) is not used.
    expect(unchangedSince(ids, { rolloutIds: [rolloutIdAt(t1 - 1)], at: t3 })).toBe(t1);
  });

  it('the next run of the lineage applies over the first apply, and a later edit of the user is still guarded', async () => {
    const home = tempDir();
    const config = testConfig(home, 'http://127.0.0.1:9');
    const store = await openStore(join(home, 'store'));
    const host = tempDir();
    tree(host);
    // Run 1 started, changed README.md; applied.
    const ran1 = tempDir();
    tree(ran1);
    await new Promise((r) => setTimeout(r, 20));
    const r1 = rolloutIdAt(Date.now());
    writeFileSync(join(ran1, 'README.md'), 'readme\nrun 1\n');
    const s1 = await store.create({ dir: ran1 }, { lineage: 'n7', kind: 'workspace', rolloutIds: [r1] });
    expect((await applySnapshot(config, s1.id, host, {})).applied).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    // Run 2 starts after that apply, from the head: adds a file.
    const ran2 = tempDir();
    tree(ran2);
    writeFileSync(join(ran2, 'README.md'), 'readme\nrun 1\n');
    const r2 = rolloutIdAt(Date.now());
    writeFileSync(join(ran2, 'src', 'lib', 'c.js'), 'export const c = 3;\n');
    const s2 = await store.create({ dir: ran2 }, { lineage: 'n7', kind: 'workspace', rolloutIds: [r1, r2], parent: s1.id });
    // Without the record (the old check) the first apply's README.md was "changed after the run started".
    await expect(applyToHost(store, s2.id, host, LAYOUT)).rejects.toMatchObject({ code: 'HOST_CHANGED' });
    expect(await applySnapshot(config, s2.id, host, {})).toMatchObject({ applied: true, added: ['src/lib/c.js'] });
    // A user edit after run 3 started is still refused.
    const r3 = rolloutIdAt(Date.now());
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(host, 'README.md'), 'readme\nrun 1\nmine\n');
    const ran3 = tempDir();
    tree(ran3);
    writeFileSync(join(ran3, 'README.md'), 'readme\nrun 1\n');
    writeFileSync(join(ran3, 'src', 'lib', 'c.js'), 'export const c = 4;\n');
    const s3 = await store.create({ dir: ran3 }, { lineage: 'n7', kind: 'workspace', rolloutIds: [r1, r2, r3], parent: s2.id });
    // Run 3 left README.md as it started (s2), so the edit is the user's alone: kept, not overwritten (trial 28 F0:
    // the guard is three-way against the tree the run started from; this refused before).
    await expect(applySnapshot(config, s3.id, host, { check: true })).resolves.toMatchObject({ changed: ['src/lib/c.js'], keptEdits: ['README.md'] });
    // Had run 3 changed README.md too, both changed it: refused.
    writeFileSync(join(ran3, 'README.md'), 'readme\nrun 3\n');
    const s3b = await store.create({ dir: ran3 }, { lineage: 'n7', kind: 'workspace', rolloutIds: [r1, r2, r3], parent: s2.id });
    await expect(applySnapshot(config, s3b.id, host, {})).rejects.toMatchObject({ code: 'HOST_CHANGED' });
    expect(await applySnapshot(config, s3.id, host, {})).toMatchObject({ applied: true, changed: ['src/lib/c.js'], keptEdits: ['README.md'] });
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toBe('readme\nrun 1\nmine\n');
  });
});
