/**
 * The messy tree (test/support/messy-tree.ts) through every path that carries a workspace, without Docker:
 * host snapshot and restore, a `--path` restore, the local backend's archive round trip, the fresh-start
 * stream, `--memory-from`; plus the create/restore symmetry rules. The Docker sessions are in test/large/.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { openStore, UnsafeArchiveError } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { hostDirectoryTar, restoreWorkspace } from '../../src/session/start.js';
import { snapshotSandbox } from '../../src/session/snapshot-sandbox.js';
import { SourceChangedError } from '../../src/snapshot/errors.js';
import { buildMessyTree, type MessyTree } from '../support/messy-tree.js';
import { tempDir } from '../snapshot/helpers.js';
import { buildTar, plantSnapshot } from '../snapshot/tar-builder.js';

const root = process.getuid?.() === 0;
const layout = { memoriesDir: 'memories', sessionsDir: 'sessions' };

/** Checks `out` holds what the messy tree holds, byte for byte where it matters. */
function expectMessyTree(out: string, t: MessyTree, options: { sparse?: boolean } = {}): void {
  const names = readdirSync(out, { encoding: 'buffer' }).map((n) => n.toString('hex'));
  expect(names).toContain(t.binaryNames[0]!.toString('hex'));
  expect(names).toContain(t.binaryNames[1]!.toString('hex'));
  expect(readFileSync(Buffer.concat([Buffer.from(`${out}/`), t.binaryNames[0]!])).toString()).toBe('first');
  expect(readFileSync(Buffer.concat([Buffer.from(`${out}/`), t.binaryNames[1]!])).toString()).toBe('second');
  expect(readFileSync(Buffer.concat([Buffer.from(`${out}/`), t.binaryNames[2]!])).toString()).toBe('inside a latin-1 directory');
  expect(readlinkSync(Buffer.from(`${out}/link-to-\xfe`, 'latin1'), { encoding: 'buffer' })).toEqual(t.binaryNames[0]);
  for (const [p, target] of Object.entries(t.links)) expect(readlinkSync(join(out, p)), p).toBe(target);
  for (const p of t.specials) expect(() => lstatSync(join(out, p)), p).toThrow();
  for (const p of t.caches) expect(() => lstatSync(join(out, p)), p).toThrow();
  expect(readFileSync(join(out, t.deep), 'utf8')).toBe('deep');
  expect(readFileSync(join(out, t.long), 'utf8')).toBe('long');
  expect(readdirSync(join(out, t.bigDir.path))).toHaveLength(t.bigDir.entries);
  const sparse = statSync(join(out, t.sparse.path));
  expect(sparse.size).toBe(t.sparse.bytes);
  if (options.sparse !== false) expect(sparse.blocks * 512).toBeLessThan(4 * 1024 * 1024);
  if (root) expect(readFileSync(join(out, t.unreadable), 'utf8')).toBe('not for you');
}

function tree(entries = 2000): { dir: string; t: MessyTree } {
  const dir = tempDir();
  return { dir, t: buildMessyTree(dir, { entries, sparseBytes: 64 * 1024 ** 2 }) };
}

describe('the messy tree, host directory', () => {
  it('snapshots and restores it whole: odd names byte for byte, links as they are, FIFOs and sockets listed as skipped', async () => {
    const { dir, t } = tree();
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'messy', kind: 'workspace' });
    const skipped = Object.fromEntries((m.skipped ?? []).map((s) => [s.path, s.reason]));
    expect(skipped).toMatchObject({ '.git/x.fifo': 'FIFO cannot be snapshotted', 'memories/pipe': 'FIFO cannot be snapshotted', 'agent.sock': 'socket cannot be snapshotted' });
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expectMessyTree(out, t);
    expect((await verifySnapshots(store, m.id))[0]).toMatchObject({ ok: true });
  });

  it('restores only memories/ of it, links included', async () => {
    const { dir } = tree(10);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'messy', kind: 'workspace' });
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out, { paths: ['memories'] });
    expect(readdirSync(out)).toEqual(['memories']);
    expect(readlinkSync(join(out, 'memories/project-notes'))).toBe('../docs/notes.md');
  });

  it('streams it into a sandbox without waiting on its FIFOs (the fresh start)', async () => {
    const { dir, t } = tree(10);
    const skips: string[] = [];
    const stream = hostDirectoryTar(dir, ['__pycache__', '.pytest_cache'], (p) => p.message && skips.push(p.message));
    let bytes = 0;
    for await (const c of stream) bytes += (c as Buffer).length;
    expect(bytes).toBeGreaterThan(t.sparse.bytes);
    expect(skips.join('\n')).toMatch(/skipped \.git\/x\.fifo: FIFO/);
  }, 30_000);

  it('a path deeper than a restore accepts, in a tar stream like the sandbox sends, is left out and listed once, not fatal', async () => {
    const deep = `aaa/${Array.from({ length: 300 }, () => 'd').join('/')}`;
    const tar = buildTar([
      { path: 'ok.txt', body: 'ok' },
      ...Array.from({ length: 3 }, (_, i) => ({ path: `${deep}/f${i}`, body: 'deep' })),
      { path: 'zz.txt', body: 'after' },
    ]);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ tar: Readable.from([tar]) }, { lineage: 'deep', kind: 'workspace' });
    expect(m.skipped).toHaveLength(1);
    expect(m.skipped![0]!.reason).toMatch(/deeper or longer than a restore accepts/);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(readdirSync(out).sort()).toEqual(['ok.txt', 'zz.txt']);
  });

  it('an unreadable file is read as root, or left out with a warning naming it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ok.txt'), 'ok');
    writeFileSync(join(dir, 'locked'), 'x', { mode: 0o000 });
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'u', kind: 'workspace' });
    if (root) expect(m.skipped).toBeUndefined();
    else expect(m.skipped).toEqual([{ path: 'locked', reason: 'file cannot be read (EACCES): left out' }]);
  });
});

describe('the messy tree through the local backend', () => {
  it('round-trips put → get → snapshot → restore with nothing dropped or merged', async () => {
    const { dir, t } = tree();
    const sb = await LocalSandbox.create({ sessionId: 'messy-local', parentDir: tempDir() });
    try {
      await sb.putArchive(hostDirectoryTar(dir, []), sb.workspaceDir);
      execFileSync('mkfifo', [join(sb.workspaceDir, 'made-by-agent.fifo')]); // before regular files in byte order
      const store = await openStore(join(tempDir(), 'store'));
      const m = await snapshotSandbox(sb, store, { lineage: 'messy', kind: 'workspace', parent: null });
      // The tree's own FIFOs were left out on the way in (the fresh start); the agent's one is listed here.
      expect(m.skipped).toEqual([{ path: 'made-by-agent.fifo', reason: 'FIFO cannot be snapshotted' }]);
      const out = join(tempDir(), 'out');
      await store.restoreToDirectory(m.id, out);
      expectMessyTree(out, t, { sparse: true });
    } finally {
      await sb.close();
    }
  }, 120_000);

  it('a file growing while the workspace is read gives a consistent snapshot or an error naming it, never a crash', async () => {
    const sb = await LocalSandbox.create({ sessionId: 'growing', parentDir: tempDir() });
    const store = await openStore(join(tempDir(), 'store'));
    writeFileSync(join(sb.workspaceDir, 'steady.txt'), 'steady');
    writeFileSync(join(sb.workspaceDir, 'growing.log'), Buffer.alloc(12 * 1024 * 1024, 0x61));
    const writer = spawn('bash', ['-c', 'while :; do printf "%01000d\\n" 1 >> growing.log; done'], { cwd: sb.workspaceDir, stdio: 'ignore' });
    try {
      for (let i = 0; i < 4; i++) {
        const r = await snapshotSandbox(sb, store, { lineage: 'g', kind: 'workspace', parent: null }).catch((e: unknown) => e);
        if (r instanceof Error) {
          expect(r).toBeInstanceOf(SourceChangedError);
          expect(r.message).toContain('growing.log');
        } else {
          const out = join(tempDir(), 'out');
          await store.restoreToDirectory((r as { id: string }).id, out);
          expect(readFileSync(join(out, 'steady.txt'), 'utf8')).toBe('steady');
        }
      }
    } finally {
      writer.kill('SIGKILL');
      await sb.close();
    }
  }, 120_000);
});

describe('--memory-from', () => {
  it("replaces the checkout's memory layout with the lineage's, exactly", async () => {
    const store = await openStore(join(tempDir(), 'store'));
    const lineageTree = tempDir();
    mkdirSync(join(lineageTree, 'memories'));
    writeFileSync(join(lineageTree, 'memories', 'MEMORY.md'), '# lineage memory\n');
    const m = await store.create({ dir: lineageTree }, { lineage: 'ci/main', kind: 'workspace' });
    const checkout = tempDir();
    mkdirSync(join(checkout, 'memories'));
    writeFileSync(join(checkout, 'memories', 'stale.md'), 'stale, from the checkout');
    writeFileSync(join(checkout, 'memories', 'MEMORY.md'), '# checkout memory\n');
    writeFileSync(join(checkout, 'code.py'), 'x = 1\n');
    const sb = await LocalSandbox.create({ sessionId: 'memory-from', parentDir: tempDir() });
    try {
      await restoreWorkspace(sb, store, { kind: 'memory-from', snapshotId: m.id, headAtStart: null }, { workspace: checkout, ignore: [], layout });
      expect(readdirSync(join(sb.workspaceDir, 'memories'))).toEqual(['MEMORY.md']);
      expect(readFileSync(join(sb.workspaceDir, 'memories', 'MEMORY.md'), 'utf8')).toBe('# lineage memory\n');
      expect(readFileSync(join(sb.workspaceDir, 'code.py'), 'utf8')).toBe('x = 1\n');
    } finally {
      await sb.close();
    }
  });
});

/** A one-entry tar whose header carries type flag `flag` (GNU sparse `S`, volume header `V`, unknown `Z`). */
function tarWithType(flag: string): Buffer {
  const tar = buildTar([{ path: 'ok.txt', body: 'fine' }, { path: 'odd', body: 'data' }]);
  const h = 1024; // second header: after ok.txt's header and its one content block
  tar.write(flag, h + 156, 1, 'latin1');
  tar.fill(0x20, h + 148, h + 156);
  let sum = 0;
  for (let i = h; i < h + 512; i++) sum += tar[i]!;
  tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, h + 148, 8, 'latin1');
  return tar;
}

describe('what create accepts, restore restores', () => {
  for (const [flag, name] of [['S', 'GNU sparse file'], ['V', 'volume header'], ['Z', 'type "Z"']] as const) {
    it(`refuses a ${name} entry loudly at create, restore and verify`, async () => {
      const store = await openStore(join(tempDir(), 'store'));
      await expect(store.create({ tar: Readable.from([tarWithType(flag)]) }, { lineage: 'x', kind: 'workspace' })).rejects.toThrow(name);
      const m = await plantSnapshot(store, tarWithType(flag));
      await expect(store.restoreToDirectory(m.id, join(tempDir(), 'out'))).rejects.toBeInstanceOf(UnsafeArchiveError);
      const [v] = await verifySnapshots(store, m.id);
      expect(v).toMatchObject({ ok: false, error: expect.stringContaining(name) });
    });
  }

  it('refuses at create a sparse file larger than a restore accepts, naming the limit', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'small.txt'), 'x');
    writeFileSync(join(dir, 'huge.img'), '');
    truncateSync(join(dir, 'huge.img'), 9 * 1024 ** 3);
    const store = await openStore(join(tempDir(), 'store'));
    const err = (await store.create({ dir }, { lineage: 'x', kind: 'workspace' }).catch((e: unknown) => e)) as Error & { code?: string };
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/huge\.img is 9663676416 bytes, over the restore limit of 8589934592 bytes/);
    expect(await store.list()).toEqual([]);
  });
});

describe('restore respects the target', () => {
  it.runIf(root)("keeps an existing target directory's owner and mode", async () => {
    const src = tempDir();
    writeFileSync(join(src, 'a.txt'), 'a');
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'o', kind: 'workspace' });
    const target = join(tempDir(), 'target');
    mkdirSync(target, { mode: 0o750 });
    chownSync(target, 1000, 1000);
    await store.restoreToDirectory(m.id, target);
    const st = statSync(target);
    expect([st.uid, st.gid, (st.mode & 0o777).toString(8)]).toEqual([1000, 1000, '750']);
  });

  it('a second restore over a tree with read-only directories swaps cleanly and leaves no .mnemara-old-*', async () => {
    const src = tempDir();
    mkdirSync(join(src, 'ro/inner'), { recursive: true });
    writeFileSync(join(src, 'ro/inner/f'), 'f');
    execFileSync('chmod', ['0555', join(src, 'ro/inner'), join(src, 'ro')]);
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: src }, { lineage: 'ro', kind: 'workspace' });
    const parent = tempDir();
    const target = join(parent, 't');
    await store.restoreToDirectory(m.id, target);
    await store.restoreToDirectory(m.id, target);
    await store.restoreToDirectory(m.id, target, { paths: ['ro'] });
    expect(readdirSync(parent)).toEqual(['t']);
    expect(readdirSync(target)).toEqual(['ro']);
    expect(readFileSync(join(target, 'ro/inner/f'), 'utf8')).toBe('f');
  });
});
