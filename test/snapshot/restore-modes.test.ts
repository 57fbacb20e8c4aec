import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { extractTar } from '../../src/snapshot/extract.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { buildTar } from './tar-builder.js';
import { tempDir } from './helpers.js';

describe('restored file modes', () => {
  it('are exact whatever the umask would clear (files are created with their mode and fchmod-ed only when needed)', async () => {
    const src = tempDir();
    const modes = { 'rw-all': 0o666, 'rwx-all': 0o777, 'group-w': 0o664, 'read-only': 0o400, plain: 0o644, none: 0o000, sticky: 0o1755 };
    for (const [name, mode] of Object.entries(modes)) {
      writeFileSync(join(src, name), name);
      chmodSync(join(src, name), mode);
    }
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
    const old = process.umask(0o027);
    try {
      const out = join(tempDir(), 'out');
      await store.restoreToDirectory(m.id, out);
      for (const [name, mode] of Object.entries(modes)) expect((statSync(join(out, name)).mode & 0o7777).toString(8), name).toBe(mode.toString(8));
    } finally {
      process.umask(old);
    }
  });

  it('of directories are exact whatever the umask (made with their mode when it is safe, chmod-ed at the end otherwise)', async () => {
    const src = tempDir();
    const modes = { open: 0o777, plain: 0o755, group: 0o775, own: 0o700, 'read-only': 0o500, sticky: 0o1777, mid: 0o750, 'plain/deep': 0o711, 'plain/deep/er': 0o755 };
    for (const name of Object.keys(modes)) {
      mkdirSync(join(src, name), { recursive: true });
      writeFileSync(join(src, name, 'f'), name);
    }
    for (const [name, mode] of Object.entries(modes).reverse()) chmodSync(join(src, name), mode);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
    for (const umask of [0o027, 0o000, 0o077]) {
      const old = process.umask(umask);
      try {
        const out = join(tempDir(), 'out');
        await store.restoreToDirectory(m.id, out);
        for (const [name, mode] of Object.entries(modes)) expect((statSync(join(out, name)).mode & 0o7777).toString(8), `${name} (umask ${umask.toString(8)})`).toBe(mode.toString(8));
      } finally {
        process.umask(old);
      }
    }
    for (const name of Object.keys(modes).reverse()) chmodSync(join(src, name), 0o755); // so the temp tree can be removed
  });

  it('of directories an archive names after their content are exact whatever the umask (parents made on the way are chmod-ed)', async () => {
    // Files first, their directories' entries last (other tars do this): the parents exist before their entries.
    const tar = buildTar([
      { path: 'a/b/f', body: 'x' },
      { path: 'c/g', body: 'y' },
      { path: 'a/b', type: 'Directory', mode: 0o755 },
      { path: 'a', type: 'Directory', mode: 0o775 },
      { path: 'c', type: 'Directory', mode: 0o700 },
    ]);
    for (const umask of [0o077, 0o022, 0o000]) {
      const old = process.umask(umask);
      try {
        const dest = join(tempDir(), 'out');
        mkdirSync(dest);
        await extractTar(Readable.from([tar]), dest, { limits: DEFAULT_RESTORE_LIMITS });
        const got = Object.fromEntries(['a', 'a/b', 'c'].map((d) => [d, (statSync(join(dest, d)).mode & 0o7777).toString(8)]));
        expect(got, `umask ${umask.toString(8)}`).toEqual({ a: '775', 'a/b': '755', c: '700' });
      } finally {
        process.umask(old);
      }
    }
  });
});
