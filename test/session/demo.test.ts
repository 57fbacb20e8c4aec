/**
 * `npm run demo`'s script, as a user runs it offline (setup aside: the suite runs after it): it says first that
 * the model is scripted, shows run 2 starting with run 1's lesson, and exits 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../examples/two-runs/demo.ts', import.meta.url));

it('runs both sessions offline and shows what carried over', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mnemara-demo-test-'));
  const home = join(root, 'home');
  try {
    const { PATH, HOME } = process.env;
    const run = await execa(process.execPath, ['--import', 'tsx', DEMO], {
      env: { PATH, HOME, MNEMARA_HOME: home },
      extendEnv: false,
      reject: false,
    });
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^mnemara two-run demo: OFFLINE, with a SCRIPTED model/);
    expect(lines[1]).toContain(`home ${home}`);
    const carried = run.stdout.slice(run.stdout.indexOf('What carried over'), run.stdout.indexOf('run     outcome'));
    expect(carried).toContain('Run the tests with `./scripts/check.sh`');
    expect(run.stdout).toMatch(/^run 1 +completed/m);
    expect(run.stdout).toMatch(/^run 2 +completed +\d+ +\d+ +0 \(\+1 memory\)/m);
    // With MNEMARA_HOME set, the demo's workspace copy is under it, not in /tmp (eleventh trial, low).
    expect(run.stdout).toContain(`the host copy ${join(home, 'demo')}/`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 120_000);
