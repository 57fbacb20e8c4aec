/**
 * Twelfth new-user trial F13: the disk filled right after a restore, and the run's transcript was left empty.
 * The rollout then stayed pending for ever: every `recover` tried it again, said "extraction failed, stays
 * pending" with no reason, and wrote a new memory snapshot and moved the head for nothing. Now an empty
 * transcript is accounted for once (a rollout summary says it holds no records), a transcript that still cannot
 * be read leaves the head where it is, and recover says why. A real store and the real CLI; no Docker needed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

function cli(home: string, args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { MNEMARA_HOME: home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    reject: false,
  });
}

type Recovered = { results: { lineage: string; head: string | null; pending: string[]; pendingErrors?: Record<string, string>; note?: string }[] };

async function headWithPending(home: string, transcripts: Record<string, string>): Promise<string> {
  const store = await openStore(join(home, 'store'));
  const ws = tempDir();
  mkdirSync(join(ws, 'sessions'));
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'app.go'), 'package main\n\nfunc main() {}\n');
  for (const [id, text] of Object.entries(transcripts)) writeFileSync(join(ws, 'sessions', `${id}.jsonl`), text);
  const w = await store.create({ dir: ws }, { lineage: 'svc', kind: 'workspace', rolloutIds: Object.keys(transcripts) });
  await store.advanceHead('svc', null, w.id);
  return w.id;
}

describe('recover of a rollout whose transcript cannot teach anything', () => {
  it('accounts for an empty transcript once: a rollout summary says so, and the next recover finds nothing', async () => {
    const home = tempDir();
    const lost = '20261204T224851005Z-c4c497b0af';
    const head = await headWithPending(home, { [lost]: '' });
    const first = await cli(home, ['recover', '--lineage', 'svc', '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    const r = (JSON.parse(first.stdout) as Recovered).results[0];
    expect(r?.pending).toEqual([]);
    expect(r?.head).not.toBeNull();
    const store = await openStore(join(home, 'store'));
    const now = (await store.getHead('svc')) as string;
    expect(now).not.toBe(head);
    const dir = tempDir();
    await store.restoreToDirectory(now, dir, { paths: ['memories'] });
    expect(readFileSync(join(dir, 'memories', 'rollout_summaries', `${lost}.md`), 'utf8')).toContain('holds no records');
    const doctor = JSON.parse((await cli(home, ['doctor', '--json'])).stdout) as { checks: { name: string; ok: boolean }[] };
    expect(doctor.checks.find((c) => c.name === 'pending')?.ok).toBe(true);
    expect(JSON.parse((await cli(home, ['recover', '--json'])).stdout)).toMatchObject({ results: [] });
    expect(await store.getHead('svc')).toBe(now);
  }, 120_000);

  it('leaves the head where it is when the pending rollout fails again, and says why', async () => {
    const home = tempDir();
    const bad = '20261204T230000000Z-dddddddddd';
    const head = await headWithPending(home, { [bad]: '{"type":"session_meta", trunc' });
    for (let i = 0; i < 2; i++) {
      const run = await cli(home, ['recover', '--lineage', 'svc', '--json']);
      expect(run.exitCode, run.stderr).toBe(0);
      const r = (JSON.parse(run.stdout) as Recovered).results[0];
      expect(r).toMatchObject({ head: null, pending: [bad] });
      expect(r?.pendingErrors?.[bad]).toMatch(/no readable records/);
      expect(await (await openStore(join(home, 'store'))).getHead('svc')).toBe(head);
    }
    const text = await cli(home, ['recover', '--lineage', 'svc']);
    expect(text.stdout).toMatch(/extraction failed, stays pending \(.*no readable records/);
  }, 120_000);
});
