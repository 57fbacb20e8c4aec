/**
 * New-user trial of issue 10: once a lineage has a head, a hand edit of the checkout's `memories/MEMORY.md` was
 * ignored without a word (medium), and `--memory-from` replaced the checkout's `memories/` silently (low). The
 * rules stay (the head is the truth; --memory-from replaces); the run now says so, naming the file and what to do,
 * on stderr and in `--json` (`notices`). A checkout whose memory matches the head, or has none, gets no notice.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionNotice, SessionResult } from '../../src/session.js';
import { startMessagesServer, text, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'notices/main';
let dirs: ReturnType<typeof scratch>;
const servers: MessagesServer[] = [];
const rollouts: string[] = [];

/** One `mnemara run` whose model says it has nothing to do; resolves with stdout, stderr and the exit code. */
async function run(workspace: string, extra: string[], json = true) {
  const server = await startMessagesServer([turn(text('Nothing to do.'))]);
  servers.push(server);
  const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'run', '-w', workspace, '--task', 'look around', ...extra, ...(json ? ['--json'] : [])], {
    env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url, PATH: process.env.PATH ?? '', MNEMARA_LOG_LEVEL: 'warn' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const result = json && r.stdout ? (JSON.parse(r.stdout) as SessionResult) : null;
  if (result) rollouts.push(result.rolloutId);
  return { ...r, result };
}

const noticesOf = (r: SessionResult | null): SessionNotice[] => r?.notices ?? [];

beforeAll(async () => {
  dirs = scratch();
  // The first run makes the head (a fresh start: nothing to compare with, no notice).
  const first = await run(dirs.workspace, ['--lineage', LINEAGE]);
  expect(first.exitCode, first.stderr).toBe(0);
  expect(noticesOf(first.result)).toEqual([]);
}, 180_000);

afterAll(async () => {
  for (const id of rollouts) await removeSessionContainers(id);
  await Promise.all(servers.map((s) => s.close()));
  dirs?.cleanup();
});

describe("the checkout's memory once the lineage has a head", () => {
  it('a hand-edited MEMORY.md in the checkout: the run warns, naming the file, the head and the commands that keep the edit', async () => {
    const file = join(dirs.workspace, 'memories', 'MEMORY.md');
    mkdirSync(join(dirs.workspace, 'memories'), { recursive: true });
    writeFileSync(file, '# Memory\n\n## Conventions\n- Always run `make lint` before committing.\n');
    const r = await run(dirs.workspace, ['--lineage', LINEAGE]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [notice, ...more] = noticesOf(r.result);
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ kind: 'host-memory-ignored', file });
    expect(notice!.message).toContain(`lineage ${LINEAGE}'s head (snapshot ${r.result!.start.snapshotId})`);
    expect(notice!.hint).toContain(`mnemara snapshot restore ${LINEAGE}`);
    expect(notice!.hint).toContain(`--lineage ${LINEAGE} --kind memory`);
    // The rule is kept: the run used the head's memory, and the checkout's file is untouched.
    expect(r.result!.start.kind).toBe('head');
    expect(readFileSync(file, 'utf8')).toContain('make lint');

    // Human output says it on stderr, and the summary repeats it.
    const human = await run(dirs.workspace, ['--lineage', LINEAGE], false);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stderr).toContain(`warning: ${file} differs from the MEMORY.md of lineage ${LINEAGE}'s head`);
    expect(human.stdout).toMatch(/^warning +.*differs from the MEMORY\.md/m);
  }, 240_000);

  it("the hint's commands keep a hand edit: it reaches the head's MEMORY.md", async () => {
    const cli = (args: string[]) =>
      execa(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '' }, extendEnv: false, reject: false });
    const dir = join(dirs.root, 'hand-edit');
    const restored = await cli(['snapshot', 'restore', LINEAGE, dir, '-p', 'memories']);
    expect(restored.exitCode, restored.stderr).toBe(0);
    const file = join(dir, 'memories', 'MEMORY.md');
    writeFileSync(file, `${readFileSync(file, 'utf8').trimEnd()}\n- Deploys go through \`make release\`, never by hand.\n`);
    const saved = await cli(['snapshot', 'create', dir, '--lineage', LINEAGE, '--kind', 'memory']);
    expect(saved.exitCode, saved.stderr).toBe(0);
    const head = join(dirs.root, 'head-after-edit');
    expect((await cli(['snapshot', 'restore', LINEAGE, head, '-p', 'memories'])).exitCode).toBe(0);
    expect(readFileSync(join(head, 'memories', 'MEMORY.md'), 'utf8')).toContain('make release');
  }, 120_000);

  it("a checkout whose MEMORY.md is the head's own gets no notice", async () => {
    // Take the head's memory layout into the checkout, as `snapshot restore -p memories` does.
    const restore = await execa(process.execPath, ['--import', 'tsx', MAIN, 'snapshot', 'restore', LINEAGE, dirs.workspace, '-p', 'memories'], {
      env: { MNEMARA_HOME: dirs.home, PATH: process.env.PATH ?? '' },
      extendEnv: false,
      reject: false,
    });
    expect(restore.exitCode, restore.stderr).toBe(0);
    const r = await run(dirs.workspace, ['--lineage', LINEAGE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(noticesOf(r.result)).toEqual([]);
  }, 180_000);
});

describe('--memory-from', () => {
  it("says the checkout's memories/ was replaced by the source lineage's, and says nothing when it had none", async () => {
    const withMemory = join(dirs.root, 'ci-checkout');
    cpSync(dirs.workspace, withMemory, { recursive: true });
    const r = await run(withMemory, ['--lineage', 'notices/ci', '--memory-from', LINEAGE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(noticesOf(r.result)).toEqual([
      expect.objectContaining({ kind: 'host-memory-replaced', file: join(withMemory, 'memories'), message: expect.stringContaining(`lineage ${LINEAGE}`) }),
    ]);

    const bare = join(dirs.root, 'bare-checkout');
    cpSync(dirs.workspace, bare, { recursive: true, filter: (src) => !src.startsWith(join(dirs.workspace, 'memories')) && !src.startsWith(join(dirs.workspace, 'sessions')) });
    const quiet = await run(bare, ['--lineage', 'notices/ci-bare', '--memory-from', LINEAGE]);
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(noticesOf(quiet.result)).toEqual([]);
  }, 240_000);
});
