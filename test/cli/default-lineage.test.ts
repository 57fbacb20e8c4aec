/**
 * Every command that takes `-w DIR` finds the lineage `mnemara run -w DIR` uses. A git checkout with a remote
 * runs on the remote's lineage (`example.invalid/acme/app`); `snapshot list`, `memory show` and `apply` on
 * `-w DIR` once looked for the directory's name-and-hash lineage instead and found nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLineage, directoryLineage, workspaceLineage } from '../../src/session/start.js';
import { openStore } from '../../src/snapshot/index.js';

let root: string;
let ws: string;
let home: string;
const REMOTE_LINEAGE = 'example.invalid/acme/app';

function cli(args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { MNEMARA_HOME: home }, reject: false });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mnemara-default-lineage-'));
  ws = join(root, 'checkout');
  home = join(root, 'home');
  mkdirSync(join(ws, 'memories'), { recursive: true });
  writeFileSync(join(ws, 'main.py'), 'print("hi")\n');
  writeFileSync(join(ws, 'memories', 'MEMORY.md'), '# Memory\n');
  execFileSync('git', ['init', '-q'], { cwd: ws });
  execFileSync('git', ['remote', 'add', 'origin', 'https://example.invalid/acme/app.git'], { cwd: ws });
  // What a run on this checkout leaves: a snapshot at the head of the remote's lineage.
  const store = await openStore(join(home, 'store'));
  const m = await store.create({ dir: ws }, { lineage: REMOTE_LINEAGE, kind: 'workspace' });
  await store.advanceHead(REMOTE_LINEAGE, null, m.id);
  // The host checkout holds no memory of its own (a run never changes it): memory commands read the head.
  rmSync(join(ws, 'memories'), { recursive: true });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the default lineage of -w DIR', { timeout: 120_000 }, () => {
  it('is the one a run uses, for the library and for every command', async () => {
    expect(await workspaceLineage(ws)).toEqual({ lineage: REMOTE_LINEAGE, source: 'git remote' });
    expect(await defaultLineage(ws)).toBe(REMOTE_LINEAGE);
    expect(directoryLineage(ws)).not.toBe(REMOTE_LINEAGE);
    const list = await cli(['snapshot', 'list', '-w', ws, '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    const doc = JSON.parse(list.stdout) as { lineage: string; snapshots: unknown[] };
    expect(doc.lineage).toBe(REMOTE_LINEAGE);
    expect(doc.snapshots).toHaveLength(1);
    const show = await cli(['memory', 'show', '-w', ws, '--json']);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ source: 'lineage', lineage: REMOTE_LINEAGE });
  });

  it('tells the packages of one checkout apart: the remote plus the path below the top level', async () => {
    const a = join(ws, 'packages', 'app1', 'app');
    const b = join(ws, 'packages', 'app2', 'app');
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    expect(await workspaceLineage(a)).toEqual({ lineage: `${REMOTE_LINEAGE}/packages/app1/app`, source: 'git remote' });
    expect(await defaultLineage(b)).toBe(`${REMOTE_LINEAGE}/packages/app2/app`);
    expect(await defaultLineage(ws)).toBe(REMOTE_LINEAGE);
  });
});
