/**
 * Issue 9, new-user trial (critical): a workspace with a 9 GiB sparse file. `run` copied it dense into the
 * sandbox (166 s) and only the workspace snapshot after the agent's whole run refused it (exit 3). A fresh start
 * is now checked against the snapshot's limits before any container exists (exit 2, naming the file, the limit
 * and snapshot.ignore); a file that grows past the limit during the run is left out and listed, the rest of the
 * run's work kept (test/large/over-limit-growth.test.ts; test/snapshot/over-limit-stream.test.ts). Sparse files (`truncate -s`) cost no disk.
 */
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { runSession } from '../../src/session.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const NINE_GIB = 9 * 1024 ** 3;
const servers: MessagesServer[] = [];
const cleanups: Array<() => void> = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of cleanups) c();
});


describe('a file over the snapshot limits', () => {
  it('in the workspace: run refuses before the sandbox starts, naming the file, the limit and snapshot.ignore', async () => {
    const dirs = scratch('over-limit');
    cleanups.push(dirs.cleanup);
    writeFileSync(join(dirs.workspace, 'vm.img'), 'disk');
    truncateSync(join(dirs.workspace, 'vm.img'), NINE_GIB);
    const server = await startMessagesServer([turn(text('Done.'))]);
    servers.push(server);
    const started = Date.now();
    const err = (await runSession({ workspace: dirs.workspace, task: 'look', config: testConfig(dirs.home, server.url), lineage: 'over-limit' }).then(
      () => null,
      (e: unknown) => e,
    )) as MnemaraError;
    expect(err).toBeInstanceOf(MnemaraError);
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toContain('vm.img');
    expect(err.message).toContain(String(NINE_GIB));
    expect(err.message).toContain(String(DEFAULT_RESTORE_LIMITS.maxTotalBytes));
    expect(err.hint).toMatch(/snapshot\.ignore/);
    expect(server.messageRequests.length).toBe(0); // the agent never ran
    expect(Date.now() - started).toBeLessThan(30_000); // nothing was copied (the copy took minutes)
    // With the file ignored, the same workspace runs.
    const ok = await runSession({
      workspace: dirs.workspace,
      task: 'look',
      config: testConfig(dirs.home, server.url, { MNEMARA_SNAPSHOT_IGNORE: 'vm.img,__pycache__' }),
      lineage: 'over-limit',
    });
    await removeSessionContainers(ok.rolloutId);
    expect(ok.outcome).toBe('completed');
  }, 300_000);

});
