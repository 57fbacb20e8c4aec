/**
 * Trial 25 (high): `mnemara run … | head` — a reader that closes the pipe early — ended the process at the first
 * write that met EPIPE, with exit 0: the exit hook removed the sandbox before its snapshot, and the agent's work was
 * gone. A closed output now only silences the output: the run goes on to its snapshot and head move, and exits with
 * its own code. Real process, real Docker, the scripted Messages server as the model.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;

beforeAll(async () => {
  dirs = scratch('closed-pipe');
  // The work lands before a pause, so the reader has long gone when the snapshot is taken.
  server = await startMessagesServer([
    turn(toolUse('bash', { command: 'echo kept > WORK.txt && sleep 3' })),
    turn(text('Wrote WORK.txt.')),
  ]);
});
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('mnemara run into a pipe the reader closed', () => {
  it('finishes the run, keeps the work, and exits with its own code', async () => {
    const cli = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(MAIN)}`;
    const r = await execa('bash', ['-c', `${cli} run -w ${JSON.stringify(dirs.workspace)} --task 'write the file' --lineage piped 2>&1 | head -1; echo "rc=\${PIPESTATUS[0]}"`], {
      env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url, PATH: process.env.PATH ?? '' },
      extendEnv: false,
      reject: false,
    });
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(2); // head's one line, then the exit code
    expect(lines[1]).toBe('rc=0');
    const store = await openStore(join(dirs.home, 'store'));
    const head = await store.getHead('piped');
    expect(head).not.toBeNull();
    const out = join(dirs.root, 'restored');
    const restore = await execa(process.execPath, ['--import', 'tsx', MAIN, 'snapshot', 'restore', head!, out], { env: { MNEMARA_HOME: dirs.home }, reject: false });
    expect(restore.exitCode, restore.stderr).toBe(0);
    expect(readFileSync(join(out, 'WORK.txt'), 'utf8')).toBe('kept\n');
    // The run's memory went through too: its rollout is extracted, not left for a recover.
    expect(existsSync(join(out, 'memories', 'MEMORY.md'))).toBe(true);
  }, 180_000);
});
