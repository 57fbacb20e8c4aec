/**
 * Round 6 finding (low): the agent ran `kill -9 -1` in the sandbox, which kills every process the sandbox user
 * may signal, the container's init included, so the container stopped; the next exec was refused and the run
 * exited 3 (mnemara failed) although nothing of mnemara's failed. The sandbox is now started again on the next
 * exec (the workspace is its volume: nothing is lost), so the run goes on and ends with the agent's own outcome:
 * a command after the kill sees the work, and a kill as the last action still gets its workspace snapshot.
 * Real Docker through the CLI, the scripted Messages server as the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch } from './harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const WRITE = "mkdir -p 'src/server config' && printf 'export const port = 3000;\\n' > 'src/server config/port.ts'";
let dirs: ReturnType<typeof scratch>;
const servers: MessagesServer[] = [];

async function run(lineage: string, server: MessagesServer) {
  const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'run', '--workspace', dirs.workspace, '--task', 'Set the port.', '--lineage', lineage, '--json'], {
    env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MNEMARA_LOG_LEVEL: 'warn' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  return { exitCode: r.exitCode, stderr: r.stderr, result: r.stdout ? (JSON.parse(r.stdout) as { outcome: string; head: string | null; workspaceSnapshot: string | null }) : null };
}

async function headFile(lineage: string, name: string): Promise<string> {
  const store = await openStore(join(dirs.home, 'store'));
  const out = join(dirs.root, `restored-${lineage}`);
  await store.restoreToDirectory((await store.getHead(lineage)) as string, out);
  return readFileSync(join(out, name), 'utf8');
}

beforeAll(() => {
  dirs = scratch('kill-all');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  dirs?.cleanup();
});

describe('the agent kills every process in its sandbox (kill -9 -1)', () => {
  it('the next command runs in the sandbox started again and sees the work; the run ends as the agent ended it', async () => {
    const server = await startMessagesServer([
      turn(text('Writing the port, then cleaning up every process.'), toolUse('bash', { command: `${WRITE} && kill -9 -1` })),
      turn(toolUse('bash', { command: "cat 'src/server config/port.ts' && echo checked >> notes.txt" })),
      (req) => turn(text(`Saw: ${lastToolResults(req)[0]?.text.split('\n')[0]}`)),
    ]);
    servers.push(server);
    const r = await run('kill-all/continue', server);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.result?.outcome).toBe('completed');
    expect(lastToolResults(server.messageRequests[2]!)[0]?.text).toContain('export const port = 3000;');
    expect(await headFile('kill-all/continue', 'src/server config/port.ts')).toBe('export const port = 3000;\n');
    expect(await headFile('kill-all/continue', 'notes.txt')).toContain('checked');
  }, 240_000);

  it('a kill as the last action: the workspace snapshot still holds the work, and the exit code is not 3', async () => {
    const server = await startMessagesServer([turn(toolUse('bash', { command: `${WRITE} && kill -9 -1` })), turn(text('Done.'))]);
    servers.push(server);
    const r = await run('kill-all/last', server);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.result?.workspaceSnapshot).toBeTruthy();
    expect(await headFile('kill-all/last', 'src/server config/port.ts')).toBe('export const port = 3000;\n');
  }, 240_000);
});
