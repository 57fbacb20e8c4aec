/**
 * Every listing of names the CLI prints (`snapshot diff`, `show`, the `skipped` warnings of `create`, and their
 * `--json`) shows a byte that is not UTF-8 as `\xNN`, as docs/snapshots.md says: the new-user trial saw
 * `A a-�.md` twice in `snapshot diff`, two different files that looked the same.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const at = (dir: string, latin1Name: string): Buffer => Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(latin1Name, 'latin1')]);

function cli(home: string, args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'snapshot', ...args], {
    cwd: ROOT,
    env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' },
    reject: false,
    encoding: 'buffer',
  });
}
const text = (b: unknown): string => Buffer.from(b as Uint8Array).toString('utf8');

describe('names that are not UTF-8 in what the CLI prints', { timeout: 300_000 }, () => {
  it('diff, show, create warnings and --json show each such byte as \\xNN, never U+FFFD', async () => {
    const home = tempDir();
    const ws = tempDir();
    writeFileSync(join(ws, 'keep.txt'), 'keep\n');
    const first = await cli(home, ['create', ws, '--lineage', 'names', '--json']);
    expect(first.exitCode, text(first.stderr)).toBe(0);
    const a = (JSON.parse(text(first.stdout)) as { head: string }).head;

    writeFileSync(at(ws, 'a-\xfe.md'), 'one\n');
    writeFileSync(at(ws, 'a-\xff.md'), 'two\n');
    mkdirSync(at(ws, 'd\xe9'));
    writeFileSync(Buffer.concat([at(ws, 'd\xe9'), Buffer.from('/in.txt')]), 'in\n');
    // argv from Node is UTF-8; the shell's printf writes the raw byte.
    execFileSync('bash', ['-c', `mkfifo "$(printf 'pipe-\\376')"`], { cwd: ws });
    const second = await cli(home, ['create', ws, '--lineage', 'names']);
    expect(second.exitCode, text(second.stderr)).toBe(0);
    const created = text(second.stdout);
    expect(created).toContain('skipped 1 path(s): pipe-\\xfe');
    const b = (await cli(home, ['list', '--lineage', 'names', '-q'])).stdout;
    const ids = text(b).trim().split('\n');
    expect(ids).toHaveLength(2);

    const diff = text((await cli(home, ['diff', a, ids[1]!])).stdout);
    expect(diff).not.toContain('\ufffd');
    expect(diff).toContain('A a-\\xfe.md');
    expect(diff).toContain('A a-\\xff.md');
    expect(diff).toContain('A d\\xe9/in.txt');

    const json = JSON.parse(text((await cli(home, ['diff', a, ids[1]!, '--json'])).stdout)) as { added: string[] };
    expect(json.added).toEqual(expect.arrayContaining(['a-\\xfe.md', 'a-\\xff.md', 'd\\xe9/in.txt']));

    const show = text((await cli(home, ['show', ids[1]!])).stdout);
    expect(show).not.toContain('\ufffd');
    expect(show).toMatch(/^ {2}pipe-\\xfe: FIFO cannot be snapshotted$/m);
    const shown = JSON.parse(text((await cli(home, ['show', ids[1]!, '--json'])).stdout)) as { skipped: { path: string }[] };
    expect(shown.skipped.map((s) => s.path)).toEqual(['pipe-\\xfe']);
  });
});
