/**
 * Thirteenth new-user trial F13: `lineage reset` to an older snapshot, to be rid of bad lessons, was undone by
 * the next `recover` (and run): the rollouts the reset dropped were taken for orphans and their lessons came
 * back. The history a reset sets aside on its `@reset-` branch is accounted for there. A real store; no Docker.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resetLineage } from '../../src/session/lineage.js';
import { findOrphans } from '../../src/session/orphans.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';
import { deadPid } from '../support/dead-pid.js';

describe('rollouts a lineage reset set aside', () => {
  it('are no orphans: recover does not bring their lessons back', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const good = '20261205T030000000Z-aaaaaaaaaa';
    const bad = '20261205T031000000Z-bbbbbbbbbb';
    const ws = tempDir();
    mkdirSync(join(ws, 'sessions'));
    writeFileSync(join(ws, 'app.py'), 'print("v1")\n');
    writeFileSync(join(ws, 'sessions', `${good}.jsonl`), '{}\n');
    const first = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', rolloutIds: [good] });
    await store.advanceHead('app', null, first.id);
    writeFileSync(join(ws, 'sessions', `${bad}.jsonl`), '{}\n');
    const second = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', parent: first.id, rolloutIds: [good, bad] });
    await store.advanceHead('app', first.id, second.id);
    // The session's transcript and record stay on the host, as every session leaves them.
    mkdirSync(join(home, 'transcripts'), { recursive: true });
    writeFileSync(join(home, 'transcripts', `${bad}.jsonl`), '{}\n');
    writeFileSync(join(home, 'transcripts', `${bad}.session.json`), JSON.stringify({ rolloutId: bad, lineage: 'app', pid: await deadPid(), host: hostname(), startedAt: '2026-12-05T03:10:00Z' }));
    expect(await findOrphans(store, home, 'app')).toEqual([]);

    const reset = await resetLineage(store, 'app', first.id);
    expect(reset.keptAs).toMatch(/^app@reset-/);
    expect(await findOrphans(store, home, 'app')).toEqual([]);
  }, 60_000);
});
