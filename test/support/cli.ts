import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '../..');
const exec = promisify(execFile);

/** Runs the mnemara CLI from source with MNEMARA_HOME=`home` (logs at error level); never throws for an exit code. */
export async function cli(home: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return exec(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, MNEMARA_HOME: home, MNEMARA_LOG_LEVEL: 'error' } }).then(
    (x) => ({ code: 0, stdout: x.stdout, stderr: x.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
