import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false });

describe('usage errors', () => {
  it('with --json, an unknown command is a {error} document on stdout and exit 2', async () => {
    const r = await cli('bogus', '--json');
    expect(r.exitCode).toBe(2);
    const doc = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } };
    expect(doc.error.code).toBe('USAGE');
    expect(doc.error.message).toMatch(/bogus/);
    expect(r.stderr).toBe('');
  });

  it('with --json, a missing required option of a subcommand is reported the same way', async () => {
    const r = await cli('snapshot', 'create', '--json');
    expect(r.exitCode).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { message: string } }).error.message).toMatch(/required/);
    expect(r.stderr).toBe('');
  });

  it('`snapshot patch` without a snapshot id, or with an empty one, says what it needs (not "missing argument \'a\'")', async () => {
    const env = { MNEMARA_HOME: mkdtempSync(join(tmpdir(), 'mnemara-usage-')) };
    for (const args of [['snapshot', 'patch'], ['snapshot', 'patch', ''], ['snapshot', 'patch', ' '], ['snapshot', 'patch', 'x', '']]) {
      const r = await execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { reject: false, env });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/snapshot id/);
      expect(r.stderr).toMatch(/mnemara snapshot patch SNAPSHOT/);
      expect(r.stderr).not.toMatch(/argument 'a'|snapshot {2}not found/);
    }
  });

  it('the `learn` report names -w DIR in its `memory show` hint when the workspace is not the current directory', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mnemara-usage-'));
    const ws = join(home, 'ws');
    mkdirSync(ws);
    const fixture = fileURLToPath(new URL('../fixtures/transcripts/pebble-docs-typo-receive.json', import.meta.url));
    const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'learn', fixture, '-w', ws, '--deterministic'], { reject: false, env: { MNEMARA_HOME: join(home, 'home') } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`(see: mnemara memory show -w ${ws})`);
  });

  it('without --json, commander prints the error and the usage hint on stderr, exit 2', async () => {
    const r = await cli('bogus');
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown command 'bogus'/);
  });
});

describe('a reader that stops early', () => {
  it('`mnemara run --help` into a closed pipe exits cleanly, without an EPIPE crash', async () => {
    // The reader closes its end at once, long before node has started: every write of the help meets EPIPE.
    const r = await execa('bash', ['-c', `"${process.execPath}" --import tsx "${MAIN}" run --help | (exec <&-; sleep 3); echo "rc=\${PIPESTATUS[0]}"`], { reject: false });
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    expect(r.stdout.trim()).toBe('rc=0');
  });
});
