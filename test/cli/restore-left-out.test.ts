/**
 * Trial 21 F6: a restore "gives you the whole tree back", but what a snapshot left out when it was taken (a path
 * deeper than a restore accepts, an unreadable file) was missing from the restore without a word; the run that
 * took the snapshot had warned once. `snapshot restore` now says what the snapshot and those it builds on left
 * out (in `--json` as `leftOut`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../snapshot/helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('snapshot restore of a chain that left a path out', () => {
  it('names the path, its reason and the snapshot that left it out', async () => {
    const home = tempDir();
    const ws = tempDir();
    const deep = join(ws, 'deep', ...Array.from({ length: 300 }, () => 'd'));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'bottom.txt'), 'bottom\n');
    writeFileSync(join(ws, 'top.txt'), 'top\n');
    const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { MNEMARA_HOME: home }, reject: false });
    const first = await cli('snapshot', 'create', ws, '--lineage', 'deep', '--json');
    expect(first.exitCode).toBe(0);
    const firstId = (JSON.parse(first.stdout) as { snapshot: { id: string } }).snapshot.id;
    // A second snapshot on top: the path is left out by its parent, and by itself again.
    writeFileSync(join(ws, 'top.txt'), 'top, changed\n');
    expect((await cli('snapshot', 'create', ws, '--lineage', 'deep', '--json')).exitCode).toBe(0);

    const r = await cli('snapshot', 'restore', 'deep', join(tempDir(), 'out'), '--json');
    expect(r.exitCode).toBe(0);
    const { leftOut } = JSON.parse(r.stdout) as { leftOut: { snapshot: string; path: string; reason: string }[] };
    expect(leftOut).toHaveLength(1);
    expect(leftOut[0]!.path).toMatch(/^deep\/d\/d\//);
    expect(leftOut[0]!.reason).toContain('deeper or longer than a restore accepts');

    const human = await cli('snapshot', 'restore', firstId, join(tempDir(), 'out'));
    expect(human.stdout).toContain(`note: 1 path(s) were left out when this snapshot or one it builds on was taken`);
    expect(human.stdout).toContain(`(snapshot ${firstId})`);

    // A restore of some paths only says nothing of the rest.
    const some = await cli('snapshot', 'restore', 'deep', join(tempDir(), 'some'), '--path', 'top.txt', '--json');
    expect((JSON.parse(some.stdout) as { leftOut: unknown[] }).leftOut).toEqual([]);
  }, 120_000);

  // Trial 23 F10: after `snapshot prune --keep 1` the head's parent is gone; the restore wrote the whole tree and then
  // ended with NOT_FOUND, exit 2, while walking the chain for this note.
  it('restores a head whose parent was pruned, exit 0', async () => {
    const home = tempDir();
    const ws = tempDir();
    writeFileSync(join(ws, 'a.txt'), 'a\n');
    const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { MNEMARA_HOME: home }, reject: false });
    expect((await cli('snapshot', 'create', ws, '--lineage', 'p')).exitCode).toBe(0);
    writeFileSync(join(ws, 'b.txt'), 'b\n');
    expect((await cli('snapshot', 'create', ws, '--lineage', 'p')).exitCode).toBe(0);
    const pruned = await cli('snapshot', 'prune', '--lineage', 'p', '--keep', '1', '--json');
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect((JSON.parse(pruned.stdout) as { removedSnapshots: string[] }).removedSnapshots).toHaveLength(1);
    const out = join(tempDir(), 'out');
    const r = await cli('snapshot', 'restore', 'p', out, '--json');
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { leftOut: unknown[] }).leftOut).toEqual([]);
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(out, 'b.txt'), 'utf8')).toBe('b\n');
  }, 60_000);
});
