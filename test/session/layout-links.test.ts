/**
 * Thirteenth new-user trial F12 (high): the agent replaced memories/MEMORY.md (and the summary) with a symbolic
 * link to a host path; the layout was copied out of the sandbox with the link, the host-side pipeline followed
 * it, and the host's /etc/shadow became a lesson in MEMORY.md and in the summary every later run starts with.
 * Links in a layout are now no memory: mnemara's copies drop them, and the pipeline refuses a person's layout that
 * holds one. Real Docker for the session; a real pipeline on a host directory.
 */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMemoryPipeline } from '../../src/memory/pipeline.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

const MARKER = 'HOST-ONLY-VICTIM-7f3a9c: root:$6$notarealhash:20228:0:99999:7:::';
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let victim: string;
let result: SessionResult;

/** Every file under `dir` (links not followed) whose bytes hold the marker. */
function holders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && readFileSync(join(e.parentPath, e.name)).includes(MARKER.slice(0, 24)))
    .map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  dirs = scratch('layout-links');
  victim = join(dirs.root, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'shadow'), `${MARKER}\n`);
  server = await startMessagesServer([
    turn(toolUse('bash', { command: `mkdir -p memories && rm -f memories/MEMORY.md memories/memory_summary.md && ln -s ${victim}/shadow memories/MEMORY.md && ln -s ${victim}/shadow memories/memory_summary.md && ln -s ${victim}/shadow memories/notes.md && ln -s ${victim} memories/linked-dir` })),
    turn(text('Linked the memory files.')),
  ]);
  result = await runSession({ workspace: dirs.workspace, task: 'Keep notes in memories/.', config: testConfig(dirs.home, server.url), lineage: 'links' });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('symbolic links the agent leaves in the memory layout', () => {
  it('are not followed on the host: no file of the head holds the host file, and the victim is untouched', async () => {
    expect(result.outcome).toBe('completed');
    expect(result.memorySnapshot).not.toBeNull();
    const out = join(dirs.root, 'head');
    await (await openStore(join(dirs.home, 'store'))).restoreToDirectory(result.head as string, out, { paths: ['memories', 'sessions'] });
    expect(holders(out)).toEqual([]);
    expect(JSON.stringify(result.lessons)).not.toContain('HOST-ONLY-VICTIM');
    expect(readdirSync(victim)).toEqual(['shadow']);
    expect(readFileSync(join(victim, 'shadow'), 'utf8')).toBe(`${MARKER}\n`);
  });

  it("are refused by the pipeline in a person's own layout, before it reads or writes anything there", async () => {
    const ws = join(dirs.root, 'checkout');
    mkdirSync(join(ws, 'memories'), { recursive: true });
    symlinkSync(join(victim, 'shadow'), join(ws, 'memories', 'MEMORY.md'));
    symlinkSync(victim, join(ws, 'sessions'));
    await expect(runMemoryPipeline({ workspaceDir: ws, extractor: 'deterministic', config: testConfig(dirs.home, server.url).memory })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('memories/MEMORY.md, sessions'),
    });
    expect(readdirSync(victim)).toEqual(['shadow']);
  });
});
