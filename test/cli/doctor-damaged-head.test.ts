/**
 * Trial 22 F8, the doctor half: a damaged lineage head was listed under "pending" as "not checked: … corrupt" and
 * doctor still ended with "ready". A head the next run cannot start from is now a failed check (exit 1) with the
 * repair hint, and the other lineages' pending rollouts are still reported.
 */
import { closeSync, mkdirSync, openSync, readSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

interface Check {
  name: string;
  ok: boolean;
  required: boolean;
  detail: string;
  fix?: string;
}

async function doctor(home: string): Promise<{ exitCode: number; ok: boolean; checks: Check[] }> {
  const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'doctor', '--json'], { env: { MNEMARA_HOME: home }, reject: false });
  const doc = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
  return { exitCode: r.exitCode ?? -1, ...doc };
}

/** A workspace with a memory layout and one rollout, as a session leaves it before phase 1 ran. */
async function lineageWithRollout(home: string, lineage: string): Promise<{ id: string; digest: string; bytes: number }> {
  const store = await openStore(join(home, 'store'));
  const ws = tempDir();
  mkdirSync(join(ws, 'memories'));
  writeFileSync(join(ws, 'memories', 'MEMORY.md'), '# Memory\n');
  // Content of its own: lineages with equal trees share their blobs.
  writeFileSync(join(ws, 'src.txt'), `${lineage}\n`.repeat(20_000));
  const m = await store.create({ dir: ws }, { lineage, kind: 'workspace', rolloutIds: [`r-${lineage}`] });
  await store.advanceHead(lineage, null, m.id);
  return { id: m.id, digest: m.layers[0]!.digest, bytes: m.layers[0]!.compressedBytes };
}

describe('mnemara doctor and a damaged lineage head', () => {
  it('fails the heads check for a truncated blob and still reports the pending rollouts of the good lineage', async () => {
    const home = tempDir();
    const bad = await lineageWithRollout(home, 'bad');
    await lineageWithRollout(home, 'good');
    const store = await openStore(join(home, 'store'));
    truncateSync(store.blobs.pathOf(bad.digest), Math.floor(bad.bytes / 2));
    const r = await doctor(home);
    const heads = r.checks.find((c) => c.name === 'heads');
    expect(heads).toMatchObject({ ok: false, required: true });
    expect(heads?.detail).toContain(`the head of bad (${bad.id}) is damaged`);
    expect(heads?.fix).toContain('mnemara lineage reset LINEAGE SNAPSHOT');
    const pending = r.checks.find((c) => c.name === 'pending');
    expect(pending?.detail).toContain('rollout(s) on the head of good not extracted yet (r-good)');
    expect(pending?.detail).not.toContain('bad');
    expect(r.ok).toBe(false);
    expect(r.exitCode).toBe(1);
  }, 60_000);

  it('fails for a flipped bit in a head blob of the right size, which only reading it finds', async () => {
    const home = tempDir();
    const bad = await lineageWithRollout(home, 'app');
    const store = await openStore(join(home, 'store'));
    const fd = openSync(store.blobs.pathOf(bad.digest), 'r+');
    const b = Buffer.alloc(1);
    const at = Math.floor(bad.bytes / 2);
    readSync(fd, b, 0, 1, at);
    b[0] = b[0]! ^ 0xff;
    writeSync(fd, b, 0, 1, at);
    closeSync(fd);
    const r = await doctor(home);
    expect(r.checks.find((c) => c.name === 'heads')?.ok).toBe(true);
    const pending = r.checks.find((c) => c.name === 'pending');
    expect(pending).toMatchObject({ ok: false, required: true });
    expect(pending?.detail).toContain(`snapshot ${bad.id} is corrupt`);
    expect(r.ok).toBe(false);
    expect(r.exitCode).toBe(1);
  }, 60_000);

  it('passes the heads check on a healthy store', async () => {
    const home = tempDir();
    await lineageWithRollout(home, 'app');
    const r = await doctor(home);
    expect(r.checks.find((c) => c.name === 'heads')).toMatchObject({ ok: true, required: true });
  }, 60_000);
});
