/**
 * Trial 25 N11: `memory show/forget/redact -w DIR` followed a checkout's `memories -> /host/dir` link: forget
 * rewrote MEMORY.md and added `.state.json` in the host folder the repository chose, redact said it replaced a
 * secret it left in place, show read it. Every memory subcommand with `-w` now refuses such a layout, as `run` and
 * `memory consolidate` do, and writes nothing.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../snapshot/helpers.js';

describe('memory subcommands on a checkout whose memory folder is a link', () => {
  it('refuse, name the link, and leave the linked folder as it was', async () => {
    const victim = tempDir();
    const md = '# Memory\n\n- Run `./check.sh` before committing.\n';
    writeFileSync(join(victim, 'MEMORY.md'), md);
    const ws = tempDir();
    mkdirSync(join(ws, 'src'));
    symlinkSync(victim, join(ws, 'memories'));
    const home = tempDir();
    for (const args of [['memory', 'show', '-w', ws], ['memory', 'search', 'check', '-w', ws], ['memory', 'forget', 'm-00000000', '-w', ws], ['memory', 'export', '--format', 'agents-md', '-w', ws]]) {
      const r = await cli(home, ...args, '--json');
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_INPUT', message: expect.stringContaining('symbolic links: memories') } });
    }
    expect(readdirSync(victim)).toEqual(['MEMORY.md']);
    expect(readFileSync(join(victim, 'MEMORY.md'), 'utf8')).toBe(md);
  }, 120_000);
});
