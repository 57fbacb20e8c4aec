import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'hold-sandbox.ts');

/** Starts a separate process that opens a sandbox; resolves once it is up, with the process and the sandbox. */
export async function holdSandbox(backend: 'docker' | 'local', session: string, mode: 'exit' | 'keep' | 'wait', env: Record<string, string> = {}, home?: string) {
  const child = execa(process.execPath, ['--import', 'tsx', FIXTURE, backend, session, mode, ...(home ? [home] : [])], {
    reject: false,
    env: { MNEMARA_LOG_LEVEL: 'warn', ...env },
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error(`fixture exited early: ${buf}`)));
  });
  return { child, sandbox: JSON.parse(line) as { id: string; workspaceDir: string } };
}

/**
 * A sandbox whose process crashed (SIGKILL: no handler ran), as a real leftover. `home` is its `config.home`
 * (`--home`), when not MNEMARA_HOME. Resolves with its container id.
 */
export async function crashedSandbox(session: string, env: Record<string, string> = {}, home?: string): Promise<string> {
  const { child, sandbox } = await holdSandbox('docker', session, 'wait', env, home);
  child.kill('SIGKILL');
  await child;
  return sandbox.id;
}

/** Container ids of a session, any state. */
export async function containersOf(session: string): Promise<string[]> {
  const { stdout } = await execa('docker', ['ps', '-aq', '--no-trunc', '--filter', `label=mnemara.session=${session}`]);
  return stdout.split('\n').filter(Boolean);
}

/** Volume names of a session. */
export async function volumesOf(session: string): Promise<string[]> {
  const { stdout } = await execa('docker', ['volume', 'ls', '-q', '--filter', `label=mnemara.session=${session}`]);
  return stdout.split('\n').filter(Boolean);
}
