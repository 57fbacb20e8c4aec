/**
 * Trial 21, F1 and F5 (both low): a second `mnemara apply` right after one that worked refused, calling the files
 * the first apply wrote "your changes" and suggesting --force; and links the agent made to a host path
 * (`-> /etc/hostname`, `-> ../../outside`) were written into the checkout without a word. Real store, real git.
 */
import { mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyToHost, linksOutside } from '../../src/snapshot/apply.js';
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
