/**
 * `mnemara recover` waits for another recover on the same home (`<home>/tmp/recover.claim`). A holder that is
 * alive but never finishes (stopped, hung) made the second wait for ever; `--wait` bounds it: exit 3 with
 * CLAIM_BUSY naming the holder, and a holder that is gone is taken over at once. Real processes, real claim file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let dirs: ReturnType<typeof scratch>;
let holder: ChildProcess;

const recover = (...args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', MAIN, 'recover', '--json', ...args], {
    env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', PATH: process.env.PATH ?? '' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });

beforeAll(() => {
  dirs = scratch();
  // A live process that holds the claim and never lets go, as a stopped recover would.
  holder = spawn('sleep', ['300'], { stdio: 'ignore' });
  mkdirSync(join(dirs.home, 'tmp'), { recursive: true });
  writeFileSync(join(dirs.home, 'tmp', 'recover.claim'), `${holder.pid} ${hostname()}\n`);
});
afterAll(() => {
  holder?.kill('SIGKILL');
  dirs?.cleanup();
});

describe('recover beside a recover that never finishes', () => {
  it('gives up after --wait with CLAIM_BUSY, naming the holder and how to stop it', async () => {
    const r = await recover('--wait', '1');
    expect(r.exitCode).toBe(3);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('CLAIM_BUSY');
    expect(error.message).toContain(`process ${holder.pid} still holds`);
    expect(error.hint).toContain(`kill ${holder.pid}`);
  }, 60_000);

  it('rejects a --wait that is not a number of seconds (exit 2)', async () => {
    const r = await recover('--wait', 'soon');
    expect(r.exitCode).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('USAGE');
  }, 60_000);

  it('takes the claim over once its holder is gone', async () => {
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const r = await recover('--wait', '1');
    expect(r.stderr).not.toContain('CLAIM_BUSY');
    expect(r.exitCode).toBe(0);
  }, 120_000);
});
