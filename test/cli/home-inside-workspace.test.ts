/**
 * Thirteenth new-user trial F8: with MNEMARA_HOME inside the workspace, a fresh copy took the home into the
 * sandbox and every snapshot, the patch listed its files as deleted, and `apply --force` removed the whole store.
 * `run` and `apply` now refuse a home or a directory store inside the directory, before anything starts, and say
 * what to move; nothing is written. Real CLI; the refusal comes before any sandbox.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../snapshot/helpers.js';

function cli(env: Record<string, string>, args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ...env },
    reject: false,
  });
}

describe('a mnemara home or store inside the workspace', () => {
  it('is refused by run and apply, naming what to move, and nothing is written', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'main.go'), 'package main\n');
    const inside = join(ws, 'relhome');
    const run = await cli({ MNEMARA_HOME: inside }, ['run', '-w', ws, '--task', 'x', '--lineage', 'inws']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`MNEMARA_HOME (${inside}) is inside the workspace ${ws}`);
    expect(run.stderr).toContain('outside the workspace');
    expect(existsSync(join(inside, 'store'))).toBe(false);

    const home = tempDir();
    const store = await cli({ MNEMARA_HOME: home }, ['run', '-w', ws, '--task', 'x', '--lineage', 'inws', '--store', join(ws, 'snapshots')]);
    expect(store.exitCode).toBe(2);
    expect(store.stderr).toContain('the snapshot store');
    // Reached through a symlink, it is still inside.
    const link = join(tempDir(), 'ws-link');
    symlinkSync(ws, link);
    mkdirSync(join(ws, 'h2'));
    const viaLink = await cli({ MNEMARA_HOME: join(ws, 'h2') }, ['apply', '-w', link, '--lineage', 'inws', '--force']);
    expect(viaLink.exitCode).toBe(2);
    expect(viaLink.stderr).toContain('is inside the workspace');
    expect(readdirSync(join(ws, 'h2'))).toEqual([]);
    expect(readdirSync(ws).sort()).toEqual(['h2', 'main.go']);
  }, 120_000);
});
