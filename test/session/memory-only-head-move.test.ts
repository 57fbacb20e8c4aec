/**
 * Issue 10, new-user trial (medium): while a session ran, a person's hand memory edit (`snapshot create --kind
 * memory`) moved the head in `memories/` only, and the session's code went to a branch `LINEAGE@…` instead of
 * the head. A head that moved only in its memory layout still has the code the session started from, so the
 * code now lands on the head, with both the person's edit and the session's rollout in its memory.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session.js';
import { createOnHead } from '../../src/snapshot/create-on-head.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const LINEAGE = 'memory-only-move';
const WORK = "module.exports = (req, res) => res.json({ ok: true });\n";
const BULLET = 'Hand note: the staging database resets every night at 02:00 UTC.';
const dirs = scratch();
const servers: MessagesServer[] = [];
const rollouts: string[] = [];

afterAll(async () => {
  for (const id of rollouts) await removeSessionContainers(id);
  await Promise.all(servers.map((s) => s.close()));
  dirs.cleanup();
});

describe('the head moved only in memories/ while a session ran', () => {
  it("the session's code lands on the head (no branch), with the person's memory edit kept", { timeout: 400_000 }, async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const first = await startMessagesServer([turn(text('Nothing to change.'))]);
    servers.push(first);
    const r1 = await runSession({ workspace: dirs.workspace, task: 'look around', config: testConfig(dirs.home, first.url), lineage: LINEAGE });
    rollouts.push(r1.rolloutId);
    expect(r1.outcome).toBe('completed');

    let edited: string | undefined;
    const second = await startMessagesServer([
      async () => {
        // The session has restored the head and asks the model: now a person edits the lineage's memory by hand.
        const head = (await store.getHead(LINEAGE)) as string;
        const copy = join(dirs.root, 'hand');
        await store.restoreToDirectory(head, copy);
        const md = join(copy, 'memories', 'MEMORY.md');
        writeFileSync(md, `${existsSync(md) ? readFileSync(md, 'utf8') : '# Memory\n'}\n- ${BULLET}\n`);
        const made = await createOnHead(store, copy, { lineage: LINEAGE, kind: 'memory', scope: ['memories', 'sessions'], boundMs: 60_000, keepRecords: ['sessions'] });
        edited = made.manifest.id;
        return turn(text('Adding the health route.'), toolUse('bash', { command: `mkdir -p routes && printf '%s' "${WORK.replace(/\n/g, '')}" > routes/health.js && echo ok` }));
      },
      turn(text('Done.')),
    ]);
    servers.push(second);
    const r2 = await runSession({ workspace: dirs.workspace, task: 'add a health route', config: testConfig(dirs.home, second.url), lineage: LINEAGE });
    rollouts.push(r2.rolloutId);
    expect(r2.outcome).toBe('completed');
    expect(edited).toBeDefined();
    expect(r2.branch).toBeUndefined();
    expect(await store.getBranch(`${LINEAGE}@${r2.rolloutId}`)).toBeNull();
    const out = join(dirs.root, 'head');
    await store.restoreToDirectory((await store.getHead(LINEAGE)) as string, out);
    expect(readFileSync(join(out, 'routes', 'health.js'), 'utf8')).toBe(WORK.replace(/\n/g, ''));
    expect(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).toContain(BULLET);
    expect(existsSync(join(out, 'sessions', `${r2.rolloutId}.jsonl`))).toBe(true);
  });
});
