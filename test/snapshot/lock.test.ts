import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineageRefs } from '../../src/snapshot/store/refs.js';
import { tempDir } from './helpers.js';

const ID = '20261129T000000000Z-00000000';

describe('lineage head lock', () => {
  it('breaks a lock left by a process that died', async () => {
    const dir = tempDir();
    const refs = new LineageRefs(dir, { timeoutMs: 2000 });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    // `ci/main` lives at `ci+/main` (refs.ts: directories carry a `+`), and its lock beside it.
    mkdirSync(join(dir, 'ci+'), { recursive: true });
    writeFileSync(join(dir, 'ci+/main.lock'), `${dead} ${hostname()} ${Date.now()} dead`);
    await refs.advance('ci/main', null, ID);
    expect(await refs.get('ci/main')).toBe(ID);
    expect(existsSync(join(dir, 'ci+/main.lock'))).toBe(false);
  });

  it('waits for a live holder and gives up with LOCK_TIMEOUT', async () => {
    const dir = tempDir();
    const refs = new LineageRefs(dir, { timeoutMs: 300 });
    writeFileSync(join(dir, 'main.lock'), `${process.pid} ${hostname()} ${Date.now()} someone-else`);
    await expect(refs.advance('main', null, ID)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(await refs.get('main')).toBeNull();
  });

  it('refuses lineage names that could leave the refs directory', async () => {
    const refs = new LineageRefs(tempDir());
    for (const bad of ['../x', '/abs', 'a/../b', '.hidden', 'x.lock', '']) {
      await expect(refs.advance(bad, null, ID)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
  });
});
