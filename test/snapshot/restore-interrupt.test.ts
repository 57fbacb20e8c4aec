import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const stagingOf = (parent: string): string[] => readdirSync(parent).filter((n) => n.includes('.mnemara-restore-'));

describe('interrupted restores (B13a)', () => {
  it('SIGINT during `mnemara snapshot restore` removes the staging directory and leaves no target', async () => {
    const home = tempDir();
    const src = tempDir();
    // Enough incompressible files that the restore is still writing when the signal comes.
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(src, `d${d}`));
      for (let f = 0; f < 150; f++) writeFileSync(join(src, `d${d}`, `f${f}`), randomBytes(16 * 1024));
    }
    const store = await openStore(join(home, 'store'));
    const { id } = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
    const parent = tempDir();
    const out = join(parent, 'out');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'snapshot', 'restore', id, out, '--json'], {
      cwd: ROOT,
      env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Signal once the staging directory holds files, i.e. in the middle of the restore.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [staging] = stagingOf(parent);
      if (staging && readdirSync(join(parent, staging)).length > 0) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`restore never started or finished too soon: ${stdout}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGINT');
    const code = await exited;
    expect(code, stdout).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'INTERRUPTED' } });
    expect(stagingOf(parent)).toEqual([]);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('a later restore removes staging siblings whose process is gone or that are old, and keeps a live one', async () => {
    const home = tempDir();
    const src = tempDir();
    writeFileSync(join(src, 'a.txt'), 'a\n');
    const store = await openStore(join(home, 'store'));
    const { id } = await store.create({ dir: src }, { lineage: 'ci/main', kind: 'workspace' });
    const parent = tempDir();
    const deadPid = spawnSync('true').pid!;
    const dead = `.out.mnemara-restore-${deadPid}-aaaaaaaaaaaa`;
    const live = `.out.mnemara-restore-${process.pid}-bbbbbbbbbbbb`;
    const oldUnowned = `.out.mnemara-restore-cccccccccccc`;
    const freshUnowned = `.out.mnemara-restore-dddddddddddd`;
    const otherTarget = `.other.mnemara-restore-${deadPid}-eeeeeeeeeeee`;
    for (const n of [dead, live, oldUnowned, freshUnowned, otherTarget]) {
      mkdirSync(join(parent, n, 'sub'), { recursive: true });
      writeFileSync(join(parent, n, 'sub', 'big'), 'partial');
    }
    const twoHoursAgo = (Date.now() - 2 * 3600_000) / 1000;
    utimesSync(join(parent, oldUnowned), twoHoursAgo, twoHoursAgo);

    await store.restoreToDirectory(id, join(parent, 'out'));
    expect(readdirSync(parent).sort()).toEqual([freshUnowned, live, otherTarget, 'out'].sort());
  });
});
