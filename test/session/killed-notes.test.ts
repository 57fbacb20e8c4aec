/**
 * A killed session's notes under `memories/` reach the head's memory when its rollout is adopted, as the notes of
 * a session that lost the head race do, not only its branch LINEAGE@<rollout-id>: by `mnemara recover` (a
 * session killed after its workspace snapshot, before the head move: a three-way merge on the snapshot it
 * started from) and by the next session (a session killed during a tool call: its stranded sandbox is rescued
 * first). mnemara's own files are never taken from the orphan as they are: its agent's MEMORY.md edit is judged
 * as its rollout's proposal, as a live run's is. Real Docker sandbox, the
 * scripted Messages server as the model, SIGKILL in a child process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { recoverLineage, type RecoverResult } from '../../src/session/recover.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const LINEAGE = 'killed-notes';
const TOKEN = 'ghp_FAKEkilledNote0a1B2c3D4e5F6g7H8i9J0kLm';
const servers: MessagesServer[] = [];
const rollouts: string[] = [];
let dirs: ReturnType<typeof scratch>;
let recovered: RecoverResult;
let killedAfterSnapshot: string;
let killedInTool: string;
let next: SessionResult;

/** Runs a session in a child process that runs `commands` as tool calls and is SIGKILLed at `killAt`. */
async function killedSession(commands: string[], killAt: string): Promise<string> {
  const server = await startMessagesServer([...commands.map((c) => turn(text('Working.'), toolUse('bash', { command: c }))), turn(text('done'))]);
  servers.push(server);
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: server.url, WORKSPACE: dirs.workspace, LINEAGE, TASK: 'set up the checks', KILL_AT: killAt },
    reject: false,
  });
  expect(child.signal).toBe('SIGKILL');
  const id = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  rollouts.push(id);
  return id;
}

/** The memory layout of the head (or of snapshot `id`), restored into a fresh directory. */
async function headMemory(name: string, id?: string): Promise<string> {
  const store = await openStore(join(dirs.home, 'store'));
  const dir = join(dirs.root, name);
  await store.restoreToDirectory(id ?? ((await store.getHead(LINEAGE)) as string), dir, { paths: ['memories', 'sessions'] });
  return dir;
}

beforeAll(async () => {
  dirs = scratch('killed-notes');
  const first = await startMessagesServer([turn(toolUse('bash', { command: "mkdir -p memories && printf '# Shared\\n- first\\n' > memories/shared.md" })), turn(text('ok'))]);
  servers.push(first);
  const config = testConfig(dirs.home, first.url);
  const a = await runSession({ workspace: dirs.workspace, task: 'start the shared notes', config, lineage: LINEAGE });
  expect(a.head).not.toBeNull();
  killedAfterSnapshot = await killedSession(
    [`printf -- '- run make check before pushing\\n- GITHUB_TOKEN=${TOKEN}\\n' > memories/notes.md && printf -- '- from the killed run\\n' >> memories/shared.md && printf -- '- Run \`make check\` before every push: it runs the linters and the unit tests.\\n' >> memories/MEMORY.md`],
    'publish:start',
  );
  recovered = await recoverLineage(await openStore(join(dirs.home, 'store')), config, LINEAGE);
  // It edits a note the head has too and MEMORY.md, then is killed mid-command: its sandbox is rescued on the
  // snapshot it started from (the session record keeps it), so both merge three-way, not as conflicts.
  killedInTool = await killedSession(
    [
      "printf -- '- the parser needs python3\\n' > memories/stranded-notes.md && printf -- '- the CI image pins python 3.11\\n' >> memories/shared.md && printf -- '- Run \\`npm run lint\\` before every commit: it checks the formatting of src/ and test/.\\n' >> memories/MEMORY.md",
      'sleep 120',
    ],
    'tool:start#2',
  );
  const d = await startMessagesServer([turn(text('Nothing to do.'))]);
  servers.push(d);
  next = await runSession({ workspace: dirs.workspace, task: 'look around', config: testConfig(dirs.home, d.url), lineage: LINEAGE });
}, 400_000);

afterAll(async () => {
  for (const id of rollouts) await removeSessionContainers(id);
  for (const s of servers) await s.close();
  dirs?.cleanup();
});

describe("a killed session's memory notes", () => {
  it('reach the head through recover (killed after the workspace snapshot), merged on the snapshot it started from', async () => {
    expect(recovered.adopted).toEqual([killedAfterSnapshot]);
    expect(recovered.notes).toEqual(['memories/notes.md', 'memories/shared.md']);
    const mem = await headMemory('after-recover', recovered.head as string);
    const notes = readFileSync(join(mem, 'memories', 'notes.md'), 'utf8');
    expect(notes).toContain('- run make check before pushing');
    expect(notes).not.toContain(TOKEN); // redacted before any layer was written
    // Only the killed run changed shared.md since its start: its version is the head's now.
    expect(readFileSync(join(mem, 'memories', 'shared.md'), 'utf8')).toBe('# Shared\n- first\n- from the killed run\n');
    // The agent's edit of MEMORY.md is judged as its rollout's proposal, as a live run's is: it lands, citing it.
    const handbook = readFileSync(join(mem, 'memories', 'MEMORY.md'), 'utf8');
    const line = handbook.split('\n').find((l) => l.includes('make check'));
    expect(line).toBeDefined();
    expect(line).toContain(killedAfterSnapshot);
    expect(readFileSync(join(mem, 'memories', '.state.json'), 'utf8')).toContain(killedAfterSnapshot);
  });

  it('reach the head through the next session (killed during a tool call, its sandbox rescued)', async () => {
    expect(next.adopted).toContain(killedInTool);
    const mem = await headMemory('after-next');
    expect(readFileSync(join(mem, 'memories', 'stranded-notes.md'), 'utf8')).toBe('- the parser needs python3\n');
    // What earlier runs put on the head stays.
    expect(existsSync(join(mem, 'memories', 'notes.md'))).toBe(true);
    // Only the stranded run changed shared.md since its start: its version, no conflict copy beside it.
    expect(readFileSync(join(mem, 'memories', 'shared.md'), 'utf8')).toBe('# Shared\n- first\n- from the killed run\n- the CI image pins python 3.11\n');
    expect(existsSync(join(mem, 'memories', `shared.md.from-${killedInTool}`))).toBe(false);
    // Its MEMORY.md edit was judged as its rollout's proposal (it had a start to compare with): it lands, citing it.
    const line = readFileSync(join(mem, 'memories', 'MEMORY.md'), 'utf8').split('\n').find((l) => l.includes('npm run lint'));
    expect(line).toContain(killedInTool);
  });
});
