/**
 * Issue 9, new-user trial (high, medium): `snapshot restore --path` with a name that is not UTF-8 restored
 * nothing and exited 0; the name as mnemara prints it (`a\xfe.md`) was refused for its backslash; and a path
 * that names nothing exited 0 with "0 entries". Now raw bytes and the printed form both find the file, a literal
 * backslash name still means itself, and a path that names nothing is exit 2 naming it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);

/** `mnemara snapshot restore ID OUT --path P` through bash, so P reaches the CLI as raw bytes (printf escapes). */
async function restorePath(home: string, id: string, out: string, printfPath: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `exec "$0" --import tsx src/cli/main.ts snapshot restore "$1" "$2" --path "$(printf '${printfPath}')"`;
  return run('bash', ['-c', script, process.execPath, id, out], { cwd: ROOT, env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' } }).then(
    (x) => ({ code: 0, stdout: x.stdout, stderr: x.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('snapshot restore --path', { timeout: 180_000 }, () => {
  it('finds non-UTF-8 names by raw bytes and by their printed \\xNN form; a path naming nothing is exit 2', async () => {
    const home = tempDir();
    const src = tempDir();
    mkdirSync(join(src, 'docs'));
    writeFileSync(Buffer.from(`${src}/a\xfe.md`, 'latin1'), 'latin-1 name');
    writeFileSync(join(src, 'dev-disk-by\\xfelabel.device'), 'literal backslash');
    writeFileSync(join(src, 'docs/notes.md'), 'notes');
    const store = await openStore(join(home, 'store'));
    const m = await store.create({ dir: src }, { lineage: 'paths', kind: 'workspace' });

    const raw = join(tempDir(), 'raw');
    expect((await restorePath(home, m.id, raw, 'a\\376.md')).code).toBe(0);
    expect(readdirSync(raw, { encoding: 'buffer' }).map((n) => n.toString('latin1'))).toEqual(['a\xfe.md']);

    const printed = join(tempDir(), 'printed');
    expect((await restorePath(home, m.id, printed, 'a\\\\xfe.md')).code).toBe(0);
    expect(readFileSync(Buffer.from(`${printed}/a\xfe.md`, 'latin1'), 'utf8')).toBe('latin-1 name');

    const literal = join(tempDir(), 'literal');
    expect((await restorePath(home, m.id, literal, 'dev-disk-by\\\\xfelabel.device')).code).toBe(0);
    expect(readdirSync(literal)).toEqual(['dev-disk-by\\xfelabel.device']);

    const none = join(tempDir(), 'none');
    const r = await restorePath(home, m.id, none, 'nosuch');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--path nosuch names nothing in snapshot');
    expect(r.stderr).toContain(`mnemara snapshot show ${m.id}`);
    expect(r.stderr).toContain('docs');
  });
});
