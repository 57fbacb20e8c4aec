/**
 * scripts/setup.sh is quiet (issue 11): one line per step with its time, the tools' own output in a log file
 * that is shown (its tail and path) only when a step fails, or in full with --verbose. Runs the real script on
 * this machine (engine and images present, as after the first setup) and the real helpers of
 * scripts/setup/lib.sh around real commands.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `script` in bash with scripts/setup/lib.sh sourced, from the repository root. */
function withLib(script: string, env: Record<string, string> = {}) {
  return execa('bash', ['-c', `set -euo pipefail; source scripts/setup/lib.sh; ${script}`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    extendEnv: false,
    reject: false,
  });
}

describe('setup output', () => {
  it('prints one timed line per step and nothing of the tools on a machine that has everything', async () => {
    const r = await execa('bash', ['scripts/setup.sh'], { cwd: ROOT, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.length).toBeLessThan(10);
    for (const step of ['packages', 'engine', 'base-image', 'sandbox-image', 'command']) {
      expect(lines.find((l) => l.startsWith(`✓ ${step} `)), step).toMatch(/ \d+\.\d s$/);
    }
    expect(lines.at(-1)).toMatch(/^setup done in \d+\.\d s/);
  }, 120_000);

  it("keeps a tool's output in the log, and on failure prints the log's tail, the fix and the log's path", async () => {
    const log = join(tmpdir(), `mnemara-setup-test-${process.pid}.log`);
    try {
      const r = await withLib(
        `logged sh -c 'for i in $(seq 1 40); do echo "tool line $i"; done; echo "E: the real reason" >&2; exit 3' || fail "the step failed" "do this"`,
        { MNEMARA_SETUP_LOG: log },
      );
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe(''); // nothing of the tool reached the terminal's stdout
      expect(r.stderr).toContain('E: the real reason');
      expect(r.stderr).toContain('tool line 40');
      expect(r.stderr).not.toContain('tool line 1\n'); // the tail, not the whole output
      expect(r.stderr).toContain('setup: the step failed');
      expect(r.stderr).toContain('  fix: do this');
      expect(r.stderr).toContain(`full log: ${log}`);
      expect(readFileSync(log, 'utf8')).toContain('tool line 1\n');
    } finally {
      rmSync(log, { force: true });
    }
  });

  it('shows the tools\' output with --verbose (MNEMARA_SETUP_VERBOSE=1), and keeps it in the log too', async () => {
    const log = join(tmpdir(), `mnemara-setup-test-v-${process.pid}.log`);
    try {
      const quiet = await withLib(`logged echo "from the tool"; record step "did it" "$(now_ms)"`, { MNEMARA_SETUP_LOG: log });
      expect(quiet.stdout).not.toContain('from the tool');
      expect(quiet.stdout).toMatch(/^✓ step +did it +\d+\.\d s$/);
      const loud = await withLib(`logged echo "from the tool"`, { MNEMARA_SETUP_LOG: log, MNEMARA_SETUP_VERBOSE: '1' });
      expect(loud.stdout).toContain('from the tool');
      expect(existsSync(log) && readFileSync(log, 'utf8')).toContain('from the tool');
    } finally {
      rmSync(log, { force: true });
    }
  });

  it('refuses an unknown option with exit 2', async () => {
    const r = await execa('bash', ['scripts/setup.sh', '--bogus'], { cwd: ROOT, reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown option --bogus');
  });
});
