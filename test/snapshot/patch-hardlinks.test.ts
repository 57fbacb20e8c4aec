/**
 * Thirteenth new-user trial F4 (high): `mnemara apply` deleted the user's files that had a second name (a hard
 * link), including ones the run never touched. A snapshot packs the later name of a linked file as a tar
 * hard-link entry; the patch skipped those entries, so each such name read as deleted (`D src/b.js`), and apply
 * removed it from the host. A hard link is now the file it names: nothing of a linked pair is deleted, a link
 * the run made is a file in the patch (apply then links it again: apply-structure.test.ts), and `snapshot diff`
 * does not call a link a change. Real store, real git.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyToHost } from '../../src/snapshot/apply.js';
import { diffSnapshots } from '../../src/snapshot/diff.js';
import { openStore } from '../../src/snapshot/index.js';
import { makePatch } from '../../src/snapshot/patch.js';
import { tempDir } from './helpers.js';

const LAYOUT = { layoutDirs: ['memories', 'sessions'] };

/** The user's tree: `src/b.js` with a second name `src/b-link.js` (sorts first, so it carries the content in a tar). */
function userTree(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.js'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'src', 'b.js'), 'export const b = 2;\n');
  linkSync(join(dir, 'src', 'b.js'), join(dir, 'src', 'b-link.js'));
  writeFileSync(join(dir, 'README.md'), 'readme\n');
}

describe('patch and apply of a tree with hard links', () => {
  it('deletes nothing of a linked pair; a link the run made is a file in the patch', async () => {
    const host = tempDir();
    userTree(host);
    const ran = tempDir();
    userTree(ran);
    // The run: a second name for src/a.js (`src/a-copy.js` sorts before it), and one real change.
    linkSync(join(ran, 'src', 'a.js'), join(ran, 'src', 'a-copy.js'));
    writeFileSync(join(ran, 'README.md'), 'readme\n// touched\n');
    const store = await openStore(join(tempDir(), 'store'));
    const base = await store.create({ dir: host }, { lineage: 'hl', kind: 'workspace' });
    const m = await store.create({ dir: ran }, { lineage: 'hl', kind: 'workspace' });

    const patch = await makePatch(store, { dir: host }, { snapshot: m.id }, LAYOUT);
    expect({ added: patch.added, changed: patch.changed, removed: patch.removed }).toEqual({ added: ['src/a-copy.js'], changed: ['README.md'], removed: [] });
    expect(patch.text).not.toContain('deleted file');

    const result = await applyToHost(store, m.id, host, { ...LAYOUT, force: true });
    expect(result.applied).toBe(true);
    for (const [file, text] of [['src/a.js', 'export const a = 1;\n'], ['src/a-copy.js', 'export const a = 1;\n'], ['src/b.js', 'export const b = 2;\n'], ['src/b-link.js', 'export const b = 2;\n'], ['README.md', 'readme\n// touched\n']]) {
      expect(existsSync(join(host, file!)), file).toBe(true);
      expect(readFileSync(join(host, file!), 'utf8'), file).toBe(text);
    }
    expect((await makePatch(store, { dir: host }, { snapshot: m.id }, LAYOUT)).removed).toEqual([]);

    // Between snapshots: the new second name is an addition, the linked files are no change.
    const diff = await diffSnapshots(store, base.id, m.id);
    expect(diff.removed).toEqual([]);
    expect(diff.changed).toEqual(['README.md']);
    expect(diff.added).toEqual(['src/a-copy.js']);
  });
});
