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
