import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs `mnemara snapshot …` as a user would; returns exit code and parsed `--json` stdout. */
async function mnemara(home: string, ...args: string[]): Promise<{ code: number; json: any }> {
  const r = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'snapshot', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' },
  }).then(
    (x) => ({ code: 0, stdout: x.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  return { code: r.code, json: JSON.parse(r.stdout) };
}

// Each test starts the CLI (tsx) up to six times: ~5–10 s each on a loaded two-core machine.
describe('mnemara snapshot (CLI)', { timeout: 180_000 }, () => {
  it('creates, restores and verifies with --json; exit 1 when verify finds damage, 2 for a non-empty target or an unknown id', async () => {
    const home = tempDir();
    const src = tempDir();
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n');
    const created = await mnemara(home, 'create', src, '--lineage', 'ci/main');
    expect(created.code).toBe(0);
    const id: string = created.json.snapshot.id;
    expect(created.json.head).toBe(id);

    const out = join(tempDir(), 'restored');
    const restored = await mnemara(home, 'restore', id, out);
    expect(restored).toMatchObject({ code: 0, json: { snapshot: id, files: 2 } });
    expect(readFileSync(join(out, 'memories/MEMORY.md'), 'utf8')).toBe('# Memory\n');

    const blob = join(home, 'store/blobs/sha256', created.json.snapshot.layers[0].digest.slice('sha256:'.length));
    chmodSync(blob, 0o644);
    writeFileSync(blob, 'garbage');
    const verified = await mnemara(home, 'verify');
    expect(verified.code).toBe(1);
    expect(verified.json.results).toEqual([{ id, ok: false, error: expect.stringContaining(id) }]);

    const notEmpty = await mnemara(home, 'restore', id, src);
    expect(notEmpty).toMatchObject({ code: 2, json: { error: { code: 'USAGE', message: expect.stringContaining('not empty') } } });

    const missing = await mnemara(home, 'restore', '20990101T000000000Z-00000000', join(tempDir(), 'new'));
    expect(missing).toMatchObject({ code: 2, json: { error: { code: 'NOT_FOUND' } } });
  }, 180_000);
});

describe('mnemara snapshot restore --path (B13b)', { timeout: 180_000 }, () => {
  it('a --path outside the snapshot is bad input (exit 2, INVALID_INPUT) with a hint about --path, not an archive error', async () => {
    const home = tempDir();
    const src = tempDir();
    mkdirSync(join(src, 'memories'));
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n');
    const id: string = (await mnemara(home, 'create', src, '--lineage', 'ci/main')).json.snapshot.id;
    for (const bad of ['../../etc', '/etc', '.']) {
      const r = await mnemara(home, 'restore', id, join(tempDir(), 'out'), '--path', bad);
      expect(r.code, bad).toBe(2);
      expect(r.json.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(bad), hint: expect.stringContaining('--path') });
      expect(r.json.error.hint).toContain('relative paths inside the snapshot');
    }
  }, 180_000);
});
