/**
 * Shared pieces of the session tests: a temporary MNEMARA_HOME, a fresh copy of the two-run example
 * repository, a configuration pointed at a scripted Messages server, and container cleanup by session label
 * (only this test's containers: other suites run theirs at the same time).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { loadConfig } from '../../src/config/load.js';
import type { MnemaraConfig } from '../../src/config/schema.js';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';

export const REPO = fileURLToPath(new URL('../../examples/two-runs/repo', import.meta.url));

/** A temporary directory tree for one test: `home` (MNEMARA_HOME) and `workspace` (a copy of the example repo). */
export function scratch(name = 'durations'): { root: string; home: string; workspace: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'mnemara-session-'));
  const home = join(root, 'home');
  const workspace = join(root, name);
  mkdirSync(home);
  cpSync(REPO, workspace, { recursive: true });
  return {
    root,
    home,
    workspace,
    cleanup: () => {
      detachLoopsUnder(root);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Detaches the loop devices whose backing file is under `dir`: workspace disks of sandboxes a test killed or
 * removed by hand. Once the directory is gone no mnemara command can find them, and each keeps its image's blocks
 * on the machine's disk (a CI run left 12). Synchronous, for cleanups; never throws.
 */
export function detachLoopsUnder(dir: string): void {
  const listed = spawnSync('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE'], { encoding: 'utf8' });
  for (const line of (listed.stdout ?? '').split('\n')) {
    const [device, file] = line.trim().split(/\s+/, 2);
    if (device && file?.startsWith(`${dir}/`)) spawnSync('losetup', ['--detach', device], { stdio: 'ignore', timeout: 10_000 });
  }
}

/** The configuration a session test runs with: the scripted server as the model, the deterministic pipeline. */
export function testConfig(home: string, baseUrl: string, env: Record<string, string> = {}): MnemaraConfig {
  return loadConfig({
    env: {
      MNEMARA_HOME: home,
      ANTHROPIC_BASE_URL: baseUrl,
      MNEMARA_MEMORY_EXTRACTOR: 'deterministic',
      MNEMARA_AGENT_MAX_TURNS: '20',
      ...env,
    },
  }).config;
}

/** Removes the containers of one session (labelled with its rollout id); returns how many there were. */
export async function removeSessionContainers(rolloutId: string): Promise<number> {
  const docker = dockerClient();
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABEL.session}=${rolloutId}`] } });
  await Promise.all(list.map((c) => docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined)));
  return list.length;
}

/** Record types of a JSONL transcript, in order (our own file: plain JSON lines). */
export function transcriptTypes(path: string): { type: string; outcome?: string }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; outcome?: string });
}

/** The bash commands a transcript's tool calls ran, in order. */
export function commandsRun(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; name?: string; input?: { command?: string } })
    .filter((r) => r.type === 'tool_call' && r.name === 'bash')
    .map((r) => String(r.input?.command));
}

/**
 * Every blob under `home`'s store, gunzipped when gzip, as one latin1 string: a secret that reached any stored
 * layer, index or manifest shows up in it.
 */
export function blobsText(home: string): string {
  let all = '';
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (relative(home, p).startsWith(join('store', 'blobs'))) {
        let data = readFileSync(p);
        if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data);
        all += data.toString('latin1');
      }
    }
  };
  walk(home);
  return all;
}

/** The containers of one session (labelled with its rollout id), in any state. */
export const sessionContainers = async (rolloutId: string) => dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.session}=${rolloutId}`] } });

const CLI_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/**
 * Runs the CLI with `--json` on `home` (deterministic extractor, the scripted model at `baseUrl`, nothing else of
 * this process's environment); never throws for an exit code. `json`: the parsed stdout, or null when empty.
 */
export async function cliJson(home: string, baseUrl: string, args: string[]): Promise<{ exitCode: number; json: unknown; stderr: string }> {
  const env = { MNEMARA_HOME: home, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: baseUrl };
  const r = await execa(process.execPath, ['--import', 'tsx', CLI_MAIN, ...args, '--json'], { env, extendEnv: false, reject: false });
  return { exitCode: r.exitCode ?? -1, json: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

const SESSION_CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));

/**
 * Runs a session in a child process (`fixtures/session-child.ts`) with `env` (MNEMARA_HOME, ANTHROPIC_BASE_URL,
 * WORKSPACE, LINEAGE, TASK, KILL_AT, …) and waits for it to end; returns the rollout id it printed at its start
 * and the signal that ended it (`SIGKILL` when KILL_AT was reached).
 */
export async function runChildSession(env: Record<string, string>): Promise<{ rolloutId: string; signal: string | undefined }> {
  const child = await execa(process.execPath, ['--import', 'tsx', SESSION_CHILD], { env, reject: false });
  const rolloutId = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  return { rolloutId, signal: child.signal };
}
