/**
 * Nothing is lost on a crash: a session killed (SIGKILL) right after its workspace snapshot reached the lineage
 * head, before phase 1, leaves its rollout pending there; the next session on the lineage extracts and
 * consolidates it.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { ADD_DAYS, FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const LINEAGE = 'crash';
let dirs: ReturnType<typeof scratch>;
let killedServer: MessagesServer;
let nextServer: MessagesServer;
let killedRollout: string;
let containersLeft: number;
let next: SessionResult;
let headAfterKill: string | null;

beforeAll(async () => {
  dirs = scratch();
  killedServer = await startMessagesServer(policy(FIX_BUG));
  // node --import tsx (not the tsx binary, which would run the session in a grandchild the signal does not reach)
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      MNEMARA_HOME: dirs.home,
      ANTHROPIC_BASE_URL: killedServer.url,
      WORKSPACE: dirs.workspace,
      LINEAGE,
      TASK: FIX_BUG.task,
      KILL_AT: 'publish:end',
    },
    reject: false,
  });
  killedRollout = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  containersLeft = await removeSessionContainers(killedRollout); // before any assertion, so a failure leaves nothing behind
  expect(child.signal).toBe('SIGKILL');
  headAfterKill = await (await openStore(join(dirs.home, 'store'))).getHead(LINEAGE);
  nextServer = await startMessagesServer(policy(ADD_DAYS));
  next = await runSession({ workspace: dirs.workspace, task: ADD_DAYS.task, config: testConfig(dirs.home, nextServer.url), lineage: LINEAGE });
}, 240_000);

afterAll(async () => {
  await killedServer?.close();
  await nextServer?.close();
  dirs?.cleanup();
});

describe('a session killed between the workspace snapshot and phase 1', () => {
  it('left its workspace snapshot at the head, with the transcript and no raw memories yet', async () => {
    expect(containersLeft).toBe(1); // SIGKILL skips every cleanup: the test removed the container by its label
    const store = await openStore(join(dirs.home, 'store'));
    const manifest = await store.get(headAfterKill as string);
    expect(manifest.kind).toBe('workspace');
    expect(manifest.rolloutIds).toContain(killedRollout);
    const out = join(dirs.root, 'after-kill');
    await store.restoreToDirectory(manifest.id, out, { paths: ['sessions'] });
    expect(readFileSync(join(out, 'sessions', `${killedRollout}.jsonl`), 'utf8')).toContain('"session_end"');
    expect(existsSync(join(dirs.home, 'transcripts', `${killedRollout}.jsonl`))).toBe(true);
  });

  it('is extracted and consolidated by the next session on the lineage', async () => {
    expect(next.start.snapshotId).toBe(headAfterKill);
    expect(next.pending).toBe(false);
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'head');
    await store.restoreToDirectory(next.head as string, out, { paths: ['memories'] });
    expect(existsSync(join(out, 'memories', 'raw_memories', `${killedRollout}.md`))).toBe(true);
    const { entries } = parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8'));
    expect(entries.flatMap((e) => e.sources)).toContain(killedRollout);
  });
});
