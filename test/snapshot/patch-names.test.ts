/**
 * Bringing a run's work home (`snapshot patch`, `mnemara apply`) with names that are not UTF-8, content that is
 * not UTF-8, and a symlink to such a name: everything arrives byte for byte (the new-user trial saw both files
 * dropped, "A s-�.md" reported and the link left dangling).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { applyToHost } from '../../src/snapshot/apply.js';
import { openStore } from '../../src/snapshot/index.js';
import { makePatch } from '../../src/snapshot/patch.js';
import { tempDir } from './helpers.js';

const bytesPath = (dir: string, name: Buffer): Buffer => Buffer.concat([Buffer.from(`${dir}/`), name]);
const FE = Buffer.from('s-\xfe.md', 'latin1');
const FF = Buffer.from('s-\xff.md', 'latin1');
const LATIN1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');

function tree(dir: string, withRun: boolean): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'keep.txt'), withRun ? 'after\n' : 'before\n');
  if (!withRun) return;
  writeFileSync(bytesPath(dir, FE), LATIN1);
  writeFileSync(bytesPath(dir, FF), 'second\n');
  symlinkSync(FE, bytesPath(dir, Buffer.from('lnk')));
  mkdirSync(bytesPath(dir, Buffer.from('d\xe9', 'latin1')));
  writeFileSync(Buffer.concat([bytesPath(dir, Buffer.from('d\xe9', 'latin1')), Buffer.from('/inner.txt')]), 'inner\n');
}

describe('patch and apply with names and content that are not UTF-8', () => {
  it('apply writes every file, link and directory byte for byte; the patch names them distinctly', async () => {
    const host = tempDir();
    tree(host, false);
    const ran = tempDir();
    tree(ran, true);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: ran }, { lineage: 'names', kind: 'workspace' });

    const patch = await makePatch(store, { dir: host }, { snapshot: m.id }, { layoutDirs: ['memories', 'sessions'] });
    expect(patch.added).toHaveLength(4);
    expect(new Set(patch.added).size).toBe(4);
    expect(patch.text).toContain('s-\\376.md');
    expect(patch.text).toContain('s-\\377.md');
    const headers = patch.text.split('\n').filter((l) => l.startsWith('diff --git'));
    expect(headers).toHaveLength(5);
    for (const h of headers) expect(h).not.toContain('\ufffd');

    const result = await applyToHost(store, m.id, host, { layoutDirs: ['memories', 'sessions'], force: true });
    expect(result.applied).toBe(true);
    const names = readdirSync(host, { encoding: 'buffer' }).map((n) => n.toString('latin1')).sort();
    expect(names).toEqual(['d\xe9', 'keep.txt', 'lnk', 's-\xfe.md', 's-\xff.md']);
    expect(readFileSync(bytesPath(host, FE))).toEqual(LATIN1);
    expect(readFileSync(bytesPath(host, FF), 'utf8')).toBe('second\n');
    expect(readlinkSync(bytesPath(host, Buffer.from('lnk')), { encoding: 'buffer' })).toEqual(FE);
    expect(readFileSync(join(host, 'keep.txt'), 'utf8')).toBe('after\n');
  });
});

const ROOT = join(import.meta.dirname, '../..');

describe('mnemara snapshot patch | git apply', { timeout: 120_000 }, () => {
  it('prints the patch as bytes: content and link targets that are not UTF-8 arrive exactly through a pipe', async () => {
    const home = tempDir();
    const before = tempDir();
    const after = tempDir();
    const SJIS = Buffer.from([0x83, 0x65, 0x83, 0x58, 0x83, 0x67, 0x0a]); // "テスト" in Shift-JIS: text to git, not UTF-8
    for (const [dir, run] of [[before, false], [after, true]] as const) {
      writeFileSync(join(dir, 'notes.txt'), run ? Buffer.concat([Buffer.from('line one\n'), LATIN1]) : 'line one\n');
      if (run) {
        writeFileSync(join(dir, 'sjis.txt'), SJIS);
        symlinkSync(Buffer.from('target-\xe9', 'latin1'), join(dir, 'link'));
      }
    }
    const store = await openStore(join(home, 'store'));
    const a = await store.create({ dir: before }, { lineage: 'pipe', kind: 'workspace' });
    const b = await store.create({ dir: after }, { lineage: 'pipe', kind: 'workspace' });

    const repo = tempDir();
    execFileSync('git', ['init', '-q'], { cwd: repo });
    writeFileSync(join(repo, 'notes.txt'), 'line one\n');
    // A real shell pipe, as a user types it: the CLI's stdout goes straight into git apply.
    const cli = `${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts snapshot patch ${a.id} ${b.id}`;
    const r = await execa('bash', ['-c', `set -o pipefail; ${cli} | git -C ${JSON.stringify(repo)} apply`], {
      cwd: ROOT,
      env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' },
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(repo, 'notes.txt'))).toEqual(Buffer.concat([Buffer.from('line one\n'), LATIN1]));
    expect(readFileSync(join(repo, 'sjis.txt'))).toEqual(SJIS);
    expect(readlinkSync(join(repo, 'link'), { encoding: 'buffer' })).toEqual(Buffer.from('target-\xe9', 'latin1'));

    const json = await execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'snapshot', 'patch', a.id, b.id, '--json'], {
      cwd: ROOT,
      env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' },
    });
    const doc = JSON.parse(json.stdout) as { patch: string | null; patchBase64: string };
    expect(doc.patch).toBeNull();
    expect(Buffer.from(doc.patchBase64, 'base64').includes(SJIS)).toBe(true);
  });
});
