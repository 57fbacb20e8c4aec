/**
 * New-user trial of issue 10: a full disk after the workspace snapshot left the run's code on no head and no
 * branch (naming the branch failed), while its transcript was adopted into the head's memory by `recover`. The
 * rollout was then "on a head", so `doctor` saw nothing orphaned and `snapshot prune --keep 1` deleted the only
 * snapshot of that code. The code of a session that never landed stays an orphan until a head or branch keeps it:
 * prune keeps it (and says why), recover names it. A real store and the real CLI; no Docker needed.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findOrphans } from '../../src/session/orphans.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';
import { deadPid } from '../support/dead-pid.js';

function record(home: string, id: string, lineage: string, pid: number): void {
  mkdirSync(join(home, 'transcripts'), { recursive: true });
  // As a full disk leaves it: the session could not mark its record ended.
  writeFileSync(join(home, 'transcripts', `${id}.session.json`), JSON.stringify({ rolloutId: id, lineage, pid, host: hostname(), startedAt: '2026-12-01T10:00:00Z' }));
}

function cli(home: string, args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { MNEMARA_HOME: home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    reject: false,
  });
}

describe('the code of a session that never landed', () => {
  it('is an orphan though its transcript is on the head: prune keeps it, recover names it', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const dead = await deadPid();
    const lost = '20261201T100000000Z-aaaaaaaaaa';
    const landedKilled = '20261201T100000001Z-bbbbbbbbbb';
    // A session killed after its head move: its workspace snapshot is in the head's layer chain (kept).
    const ws = tempDir();
    mkdirSync(join(ws, 'sessions'));
    writeFileSync(join(ws, 'app.py'), 'print("v1")\n');
    writeFileSync(join(ws, 'sessions', `${landedKilled}.jsonl`), 'x\n');
    record(home, landedKilled, 'app', dead);
    const w1 = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', rolloutIds: [landedKilled] });
    const m1 = await store.create({ dir: ws }, { lineage: 'app', kind: 'memory', parent: w1.id, scope: ['sessions'], rolloutIds: [landedKilled] });
    await store.advanceHead('app', null, m1.id);
    // The session that hit the full disk: workspace snapshot on top of the head, not named.
    writeFileSync(join(ws, 'app.py'), 'print("the only copy of this fix")\n');
    writeFileSync(join(ws, 'sessions', `${lost}.jsonl`), 'y\n');
    record(home, lost, 'app', dead);
    const w2 = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', parent: m1.id, rolloutIds: [landedKilled, lost] });
    // Recover adopted its transcript into the head's memory while naming the branch failed.
    const m2 = await store.create({ dir: ws }, { lineage: 'app', kind: 'memory', parent: m1.id, scope: ['sessions'], rolloutIds: [landedKilled, lost] });
    await store.advanceHead('app', m1.id, m2.id);

    const [app] = await findOrphans(store, home, 'app');
    expect(app?.snapshots).toEqual([{ id: w2.id, rolloutIds: [lost] }]);

    const prune = await cli(home, ['snapshot', 'prune', '--keep', '0', '--json']);
    expect(prune.exitCode, prune.stderr).toBe(0);
    const report = JSON.parse(prune.stdout) as { removedSnapshots: string[]; protected?: { id: string; why: string }[] };
    expect(report.removedSnapshots).not.toContain(w2.id);
    expect(report.protected).toEqual([{ id: w2.id, why: expect.stringContaining(lost) }]);
    expect((await store.get(w2.id)).id).toBe(w2.id);

    const recover = await cli(home, ['recover', '--lineage', 'app', '--json']);
    expect(recover.exitCode, recover.stderr).toBe(0);
    expect(await store.getBranch(`app@${lost}`)).toBe(w2.id);
    expect(await findOrphans(store, home, 'app')).toEqual([]);
  }, 120_000);

  it.each([
    ['changed nothing outside its memory', 'print("v1")\n', 'print("v1")\n'],
    ['made the change another session already put on the head', 'print("v2")\n', 'print("v2")\n'],
  ])('gets no branch when the head already holds its code: a session that %s, whose publish ran out of disk', async (_what, ours, onHead) => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const dead = await deadPid();
    const lost = '20261201T110000000Z-cccccccccc';
    const ws = tempDir();
    mkdirSync(join(ws, 'sessions'));
    mkdirSync(join(ws, 'memories'));
    writeFileSync(join(ws, 'app.py'), 'print("v1")\n');
    const m1 = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace' });
    await store.advanceHead('app', null, m1.id);
    // The session's workspace snapshot (its own notes and transcript beside the code), then a full disk in publish.
    writeFileSync(join(ws, 'app.py'), ours);
    writeFileSync(join(ws, 'memories', 'notes.md'), 'run the app with python3 app.py\n');
    writeFileSync(join(ws, 'sessions', `${lost}.jsonl`), 'y\n');
    record(home, lost, 'app', dead);
    const w = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace', parent: m1.id, rolloutIds: [lost] });
    // Meanwhile the head moved to the same code (another session; or nowhere, when the session changed nothing).
    if (onHead !== 'print("v1")\n') {
      const other = tempDir();
      writeFileSync(join(other, 'app.py'), onHead);
      const m2 = await store.create({ dir: other }, { lineage: 'app', kind: 'workspace', parent: m1.id, rolloutIds: ['20261201T110000001Z-dddddddddd'] });
      await store.advanceHead('app', m1.id, m2.id);
    }
    expect((await findOrphans(store, home, 'app'))[0]?.snapshots).toEqual([{ id: w.id, rolloutIds: [lost] }]);

    const recover = await cli(home, ['recover', '--lineage', 'app', '--json']);
    expect(recover.exitCode, recover.stderr).toBe(0);
    const out = JSON.parse(recover.stdout) as { results: { adopted: string[]; branches: unknown[] }[] };
    expect(out.results[0]?.adopted).toEqual([lost]);
    expect(out.results[0]?.branches).toEqual([]);
    expect(await store.getBranch(`app@${lost}`)).toBeNull();
    expect(await findOrphans(store, home, 'app')).toEqual([]);
    const doctor = await cli(home, ['doctor', '--json']);
    const orphans = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean }[] }).checks.find((c) => c.name === 'orphans');
    expect(orphans?.ok).toBe(true);
  }, 120_000);

  it('recover removes the scratch directory of a session killed after its head move, with nothing orphaned', async () => {
    const home = tempDir();
    const dead = await deadPid();
    const gone = join(home, 'tmp', `session-20261201T100000000Z-aaaaaaaaaa-p${dead}-x1y2z3`);
    const live = join(home, 'tmp', `session-20261201T100000001Z-bbbbbbbbbb-p${process.pid}-a1b2c3`);
    for (const d of [gone, live]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'layer.tar'), Buffer.alloc(4096));
    }
    const r = await cli(home, ['recover', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(live)).toBe(true);
  }, 120_000);
});
