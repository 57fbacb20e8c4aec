import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
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
});
