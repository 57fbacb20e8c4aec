/**
 * Issue 9, new-user trial (critical), on the real Docker engine: a file the agent grows past the snapshot's
 * content limit (a 9 GiB sparse file) is left out of the workspace snapshot and listed in `skipped`; the rest of
 * the run's work is kept (before: exit 3, the work only in the kept sandbox). Slow by nature (minutes): Docker's
 * archive API streams the sparse file's 9 GiB of zeros, which the snapshot reads and drops.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { tempDir } from '../snapshot/helpers.js';
import { removeSessionContainers, scratch, testConfig } from '../session/harness.js';

const NINE_GIB = 9 * 1024 ** 3;
const servers: MessagesServer[] = [];
const cleanups: Array<() => void> = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of cleanups) c();
});

describe('a file grown past the snapshot limits in the Docker sandbox', () => {
  it('grown during the run: left out and listed in skipped; the rest of the run is snapshotted', async () => {
    const dirs = scratch('grown');
    cleanups.push(dirs.cleanup);
    const server = await startMessagesServer([
      turn(text('Working.'), toolUse('bash', { command: `printf 'kept work' > result.txt && truncate -s ${NINE_GIB} grown.img && ls -ls` })),
      turn(text('Done.')),
    ]);
    servers.push(server);
    const r = await runSession({ workspace: dirs.workspace, task: 'work', config: testConfig(dirs.home, server.url), lineage: 'grown' });
    await removeSessionContainers(r.rolloutId);
    expect(r.outcome).toBe('completed');
    expect(r.workspaceSnapshot).not.toBeNull();
    const store = await openStore(join(dirs.home, 'store'));
    const ws = await store.get(r.workspaceSnapshot!);
    const skipped = Object.fromEntries((ws.skipped ?? []).map((s) => [s.path, s.reason]));
    expect(skipped['grown.img']).toMatch(new RegExp(`${NINE_GIB} bytes, over the restore limit of ${DEFAULT_RESTORE_LIMITS.maxTotalBytes}`));
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(r.head!, out);
    expect(readFileSync(join(out, 'result.txt'), 'utf8')).toBe('kept work');
    expect(() => readFileSync(join(out, 'grown.img'))).toThrow();
  }, 600_000);
});
