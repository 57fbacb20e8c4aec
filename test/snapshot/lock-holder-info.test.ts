import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withMemoryLock } from '../../src/memory/lock.js';
import { LineageRefs } from '../../src/snapshot/store/refs.js';
import { tempDir } from './helpers.js';

const ID = '20261129T000000000Z-00000000';
const REPO = resolve(__dirname, '../..');

/** Makes `path` look `ms` old, as a lock left by a writer that died that long ago. */
function age(path: string, ms: number): void {
  const t = (Date.now() - ms) / 1000;
  utimesSync(path, t, t);
}

// New-user trial (#10): the disk filled between the O_EXCL create of a branch lock and the write of its holder
// info; the 0-byte lock stayed, and every later writer of that ref (recover's adoption) timed out "held by: ".
describe('ref locks whose holder info could not be written', () => {
  it('removes its own lock when writing the holder info fails (a real EFBIG from a file size limit)', () => {
    const dir = tempDir();
    const script = join(tempDir(), 'advance.mts');
    writeFileSync(
      script,
      `import { LineageRefs } from ${JSON.stringify(join(REPO, 'src/snapshot/store/refs.ts'))};
const refs = new LineageRefs(process.argv[2], { timeoutMs: 1000 }, 'branch');
try { await refs.advance('ci/main@r1', null, '${ID}'); console.log('OK'); } catch (e) { console.log('ERR ' + e.code); }
`,
    );
    // RLIMIT_FSIZE 0 with SIGXFSZ ignored: every write into a file fails with EFBIG, as ENOSPC would on a full disk.
    const run = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 0; exec "${process.execPath}" --import tsx "${script}" "${dir}"`], {
      cwd: REPO,
      env: { ...process.env, TSX_DISABLE_CACHE: '1' },
      encoding: 'utf8',
    });
    expect(run.stdout.trim()).toBe('ERR EFBIG');
    expect(readdirSync(join(dir, 'ci+'))).toEqual([]);
  });

  it('takes over an empty or unparsable ref lock older than a few seconds, and then works', async () => {
    for (const content of ['', 'garbage\u0000']) {
      const dir = tempDir();
      const refs = new LineageRefs(dir, { timeoutMs: 2000 }, 'branch');
      mkdirSync(join(dir, 'ci+'), { recursive: true });
      const lock = join(dir, 'ci+/main@r1.lock');
      writeFileSync(lock, content);
      age(lock, 10_000);
      await refs.advance('ci/main@r1', null, ID);
      expect(await refs.get('ci/main@r1')).toBe(ID);
      expect(existsSync(lock)).toBe(false);
    }
  });

  it('still waits for a fresh empty ref lock (its holder is about to write its info)', async () => {
    const dir = tempDir();
    const refs = new LineageRefs(dir, { timeoutMs: 300 }, 'branch');
    mkdirSync(join(dir, 'ci+'), { recursive: true });
    writeFileSync(join(dir, 'ci+/main@r1.lock'), '');
    await expect(refs.advance('ci/main@r1', null, ID)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
  });

  it('takes over an empty memory lock older than a few seconds', async () => {
    const lock = join(tempDir(), 'memories', '.lock');
    mkdirSync(join(lock, '..'), { recursive: true });
    writeFileSync(lock, '');
    age(lock, 10_000);
    expect(await withMemoryLock(lock, async () => 'ran', { waitMs: 500 })).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });
});
