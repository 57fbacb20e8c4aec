/**
 * Orphans (issue 10, item 3), without Docker: a transcript whose session process is gone and whose rollout is
 * on no head, and a snapshot holding such a rollout, are found, adopted into a memory layout and named as a
 * branch; live sessions and rollouts on a head are left alone; scratch directories of dead processes go.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adoptOrphans, endSessionRecord, findOrphans, removeDeadScratch, removeSpentRecords, writeSessionRecord } from '../../src/session/orphans.js';
import { recoverLineage } from '../../src/session/recover.js';
import { testConfig } from './harness.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';
import { deadPid } from '../support/dead-pid.js';

const LAYOUT = { memoriesDir: 'memories', sessionsDir: 'sessions' };

function transcript(home: string, id: string): void {
  mkdirSync(join(home, 'transcripts'), { recursive: true });
  writeFileSync(
    join(home, 'transcripts', `${id}.jsonl`),
    `${JSON.stringify({ type: 'session_meta', v: 1, ts: '2026-12-01T10:00:00Z', rolloutId: id, conversationId: id, task: 'fix the parser', model: 'm' })}\n`,
  );
}

function record(home: string, id: string, lineage: string, pid: number, ended = false): void {
  writeFileSync(
    join(home, 'transcripts', `${id}.session.json`),
    JSON.stringify({ rolloutId: id, lineage, pid, host: hostname(), startedAt: '2026-12-01T10:00:00Z', ...(ended ? { endedAt: '2026-12-01T10:05:00Z' } : {}) }),
  );
}

describe('orphaned rollouts', () => {
  it('finds dead sessions off every head, skips live and landed ones, adopts transcripts and names snapshots', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const dead = await deadPid();
    const ids = { killed: '20261201T100000000Z-aaaaaaaaaa', live: '20261201T100000001Z-bbbbbbbbbb', landed: '20261201T100000002Z-cccccccccc', ended: '20261201T100000003Z-dddddddddd', snap: '20261201T100000004Z-eeeeeeeeee', other: '20261201T100000005Z-ffffffffff' };
    for (const id of Object.values(ids)) transcript(home, id);
    record(home, ids.killed, 'app', dead);
    record(home, ids.live, 'app', process.pid);
    record(home, ids.landed, 'app', dead);
    record(home, ids.ended, 'app', process.pid, true);
    record(home, ids.other, 'elsewhere', dead);
    // The head holds `landed`; a workspace snapshot on no head holds `snap` (its session record is gone).
    const ws = tempDir();
    mkdirSync(join(ws, 'sessions'));
    writeFileSync(join(ws, 'sessions', `${ids.landed}.jsonl`), 'x\n');
    const head = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', rolloutIds: [ids.landed] });
    await store.advanceHead('app', null, head.id);
    writeFileSync(join(ws, 'sessions', `${ids.snap}.jsonl`), `${JSON.stringify({ type: 'session_meta', rolloutId: ids.snap })}\n`);
    writeFileSync(join(ws, 'main.py'), 'print("work of the killed session")\n');
    record(home, ids.snap, 'app', dead);
    const lost = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', parent: head.id, rolloutIds: [ids.snap] });
    // `snap`'s host transcript is gone too: it comes back from the snapshot.
    rmSync(join(home, 'transcripts', `${ids.snap}.jsonl`));

    const [app] = await findOrphans(store, home, 'app');
    expect(app!.transcripts.map((t) => t.rolloutId).sort()).toEqual([ids.killed, ids.ended].sort());
    expect(app!.snapshots).toEqual([{ id: lost.id, rolloutIds: [ids.snap] }]);
    expect((await findOrphans(store, home)).map((o) => o.lineage).sort()).toEqual(['app', 'elsewhere']);

    const layoutDir = tempDir();
    const adoption = await adoptOrphans(store, home, 'app', layoutDir, LAYOUT);
    expect(adoption.rolloutIds.sort()).toEqual([ids.killed, ids.ended, ids.snap].sort());
    for (const id of adoption.rolloutIds) expect(existsSync(join(layoutDir, 'sessions', `${id}.jsonl`))).toBe(true);
    expect(readFileSync(join(layoutDir, 'sessions', `${ids.snap}.jsonl`), 'utf8')).toContain(ids.snap);
    expect(adoption.branches).toEqual([{ name: `app@${ids.snap}`, snapshot: lost.id }]);
    expect(await store.getBranch(`app@${ids.snap}`)).toBe(lost.id);
    // Named now: not an orphan snapshot any more.
    expect((await findOrphans(store, home, 'app'))[0]!.snapshots).toEqual([]);
  });

  // Eleventh trial (low): a killed run's code was on a branch named before (a session that adopted it and then did
  // not land, or `recover`), and the run that adopted its transcript did not say where that code is.
  it('an adopted rollout whose code was named earlier gets its branch reported', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const killed = '20261201T100000000Z-aaaaaaaaaa';
    transcript(home, killed);
    record(home, killed, 'app', await deadPid());
    const ws = tempDir();
    writeFileSync(join(ws, 'main.py'), 'print("the killed run\'s fix")\n');
    const code = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', rolloutIds: [killed] });
    await store.moveBranch(`app@${killed}`, null, code.id);
    const adoption = await adoptOrphans(store, home, 'app', tempDir(), LAYOUT);
    expect(adoption.rolloutIds).toEqual([killed]);
    expect(adoption.branches).toEqual([{ name: `app@${killed}`, snapshot: code.id }]);
  });

  it('a landed session removes its record; an ended one is marked, atomically', async () => {
    const home = tempDir();
    await writeSessionRecord(home, 'r-landed', 'app');
    await writeSessionRecord(home, 'r-failed', 'app');
    await endSessionRecord(home, 'r-landed', true);
    await endSessionRecord(home, 'r-failed', false);
    expect(existsSync(join(home, 'transcripts', 'r-landed.session.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(home, 'transcripts', 'r-failed.session.json'), 'utf8'))).toMatchObject({ lineage: 'app', endedAt: expect.any(String) });
  });

  it('removes scratch directories of dead processes only', async () => {
    const home = tempDir();
    const dead = await deadPid();
    const gone = join(home, 'tmp', `session-r1-p${dead}-abc123`);
    const mine = join(home, 'tmp', `session-r2-p${process.pid}-def456`);
    for (const d of [gone, mine]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'big.bin'), Buffer.alloc(1024));
    }
    expect(await removeDeadScratch(home)).toEqual([gone]);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(mine)).toBe(true);
  });

  // Records of sessions killed before their agent ran were never removed (tenth new-user trial, low).
  it('removes the records of gone sessions that died before their agent ran, with no transcript and no sandbox left', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'transcripts'), { recursive: true });
    const dead = await deadPid();
    const pending = (id: string, lineage: string, pid: number, extra: object = {}): void =>
      writeFileSync(join(home, 'transcripts', `${id}.session.json`), JSON.stringify({ rolloutId: id, lineage, pid, host: hostname(), startedAt: '2026-12-01T10:00:00Z', restore: 'pending', ...extra }));
    pending('r-spent', 'app', dead);
    pending('r-empty', 'app', dead);
    writeFileSync(join(home, 'transcripts', 'r-empty.jsonl'), '');
    pending('r-ended', 'app', process.pid, { endedAt: '2026-12-01T10:01:00Z' });
    pending('r-live', 'app', process.pid); // still starting
    pending('r-talked', 'app', dead);
    transcript(home, 'r-talked'); // a transcript: adoption reads the record
    pending('r-boxed', 'app', dead); // its container is still there: the rescue needs the record
    pending('r-other', 'web', dead); // another lineage: its own sessions clean it
    record(home, 'r-ran', 'app', dead); // the restore ended (no `restore`: an older record): never removed here
    const removed = await removeSpentRecords(home, 'app', async (id) => id === 'r-boxed');
    expect(removed.sort()).toEqual(['r-empty', 'r-ended', 'r-spent']);
    for (const id of ['r-live', 'r-talked', 'r-boxed', 'r-other', 'r-ran']) expect(existsSync(join(home, 'transcripts', `${id}.session.json`)), id).toBe(true);
    // An engine that cannot be asked keeps every record.
    pending('r-spent2', 'app', dead);
    expect(await removeSpentRecords(home, 'app', async () => Promise.reject(new Error('no engine')))).toEqual([]);
  });

  it('recover on a lineage with no snapshot adopts nothing yet, and says so the same way every time', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const id = '20261201T100000000Z-aaaaaaaaaa';
    transcript(home, id);
    record(home, id, 'fresh', await deadPid());
    // No model is called on this path: the URL only satisfies the configuration.
    const config = testConfig(home, 'http://127.0.0.1:9');
    for (let call = 1; call <= 2; call++) {
      const r = await recoverLineage(store, config, 'fresh');
      expect(r).toMatchObject({ adopted: [], waiting: [id], head: null });
      expect(r.note).toContain('first session');
    }
    expect(await store.getHead('fresh')).toBeNull();
  });

  // Trial 25 N1: a pending rollout whose transcript the head's `sessions/` lacks stayed pending for good, while each
  // `recover` printed "extracted … (it was on the head, pending)". It is extracted from this home's copy; without
  // one it is said to stay pending, with why.
  it('recover extracts a pending rollout from the home\'s transcript, and names one it cannot', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const [withCopy, without] = ['20261201T100000000Z-bbbbbbbbbb', '20261201T110000000Z-cccccccccc'];
    const tree = tempDir();
    mkdirSync(join(tree, 'memories'), { recursive: true });
    mkdirSync(join(tree, 'sessions'), { recursive: true });
    writeFileSync(join(tree, 'app.py'), 'print(1)\n');
    const m = await store.create({ dir: tree }, { lineage: 'gap', kind: 'workspace', rolloutIds: [withCopy, without] });
    await store.advanceHead('gap', null, m.id);
    transcript(home, withCopy);
    const r = await recoverLineage(store, testConfig(home, 'http://127.0.0.1:9'), 'gap');
    expect(r.extracted).toEqual([withCopy]);
    expect(r.pending).toEqual([without]);
    expect(r.pendingErrors?.[without]).toContain('no transcript');
    const out = tempDir();
    await store.restoreToDirectory(r.head!, out);
    expect(existsSync(join(out, 'sessions', `${withCopy}.jsonl`))).toBe(true);
    expect(existsSync(join(out, 'memories', 'rollout_summaries'))).toBe(true);
  });
});
