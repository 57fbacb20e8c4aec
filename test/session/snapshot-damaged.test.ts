/**
 * A workspace whose filesystem is damaged is never snapshotted (twelfth new-user trial, F6): a workspace disk whose
 * sparse image lived on a host disk that filled had directories failing their checksum; the archive walk left
 * them out without a word and `mnemara recover` made the truncated tree the lineage head (384 files gone, which
 * `apply` would have deleted from the user's checkout). Here a real ext4 image, loop-mounted, has one directory
 * block overwritten (as a failed writeback leaves it); the snapshot of a sandbox on it must fail with an I/O error
 * naming the damage, and the store must hold no snapshot of it. The undamaged control is snapshotted whole.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ioFailureCode } from '../../src/config/io-errors.js';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { damagedFilesystem, snapshotSandbox } from '../../src/session/snapshot-sandbox.js';
import { openStore } from '../../src/snapshot/index.js';

const root = mkdtempSync(join(tmpdir(), 'mnemara-damaged-'));
const image = join(root, 'disk.img');
const mnt = join(root, 'mnt');
let sandbox: LocalSandbox;
let mounted = false;

const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  mkdirSync(mnt);
  sh('truncate', ['-s', '16M', image]);
  sh('mkfs.ext4', ['-q', '-F', image]);
  sh('mount', ['-o', 'loop', image, mnt]);
  mounted = true;
  sandbox = await LocalSandbox.create({ sessionId: 'damaged', parentDir: mnt });
  const ws = sandbox.workspaceDir;
  // A small project: a README, a source folder with enough files for a directory block of its own.
  writeFileSync(join(ws, 'README.md'), '# demo\n');
  mkdirSync(join(ws, 'src', 'memory'), { recursive: true });
  for (let i = 0; i < 120; i++) writeFileSync(join(ws, 'src', 'memory', `rule-${i}.ts`), `export const rule${i} = ${i};\n`);
}, 60_000);

afterAll(async () => {
  await sandbox?.close().catch(() => undefined);
  if (mounted) sh('umount', [mnt]);
  rmSync(root, { recursive: true, force: true });
});

describe('a damaged workspace filesystem', () => {
  it('the undamaged workspace is snapshotted whole (the control)', async () => {
    const store = await openStore(join(root, 'store-ok'));
    const m = await snapshotSandbox(sandbox, store, { lineage: 'ok', kind: 'workspace', parent: null });
    expect(m.treeIndex?.entries).toBeGreaterThanOrEqual(123);
  });

  it('is refused with an I/O error that names the damage; the store holds no snapshot of it', async () => {
    const dir = `/${relative(mnt, join(sandbox.workspaceDir, 'src', 'memory'))}`;
    sh('umount', [mnt]);
    mounted = false;
    const block = Number(sh('debugfs', ['-R', `blocks ${dir}`, image]).trim().split(/\s+/)[0]);
    expect(block).toBeGreaterThan(0);
    // What a failed writeback leaves: a directory block of other bytes (its checksum fails).
    const blockSize = Number(/Block size:\s+(\d+)/.exec(sh('dumpe2fs', ['-h', image]))![1]);
    execFileSync('dd', ['if=/dev/urandom', `of=${image}`, `bs=${blockSize}`, `seek=${block}`, 'count=1', 'conv=notrunc', 'status=none']);
    sh('mount', ['-o', 'loop', image, mnt]);
    mounted = true;
    const store = await openStore(join(root, 'store-damaged'));
    const err = await snapshotSandbox(sandbox, store, { lineage: 'damaged', kind: 'workspace', parent: null }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).not.toBeNull();
    expect(err!.message).toMatch(/the workspace's filesystem is damaged \(EIO\): .*src\/memory.*: (Bad message|Structure needs cleaning|Input\/output error)/);
    expect(ioFailureCode(err)).toBe('EIO');
    expect(await store.list()).toEqual([]);
  });

  it('is told apart from a directory the walk may not read, by what find says', () => {
    expect(damagedFilesystem("find: '/workspace/src': Permission denied\n")).toBeNull();
    expect(damagedFilesystem("find: '/workspace/src/memory': Bad message\n")).toBe("find: '/workspace/src/memory': Bad message");
    expect(damagedFilesystem("find: '/workspace/a': Input/output error\n")).not.toBeNull();
    expect(damagedFilesystem("find: '/workspace/a': Structure needs cleaning\n")).not.toBeNull();
  });
});
