/**
 * Issue 15, item 2: the workspace snapshot of a restored sandbox brings out only what the run changed (found by
 * comparing a listing taken inside the container right after the restore with one taken at the end: size,
 * mode, inode, ctime — not mtime) and packs it straight into a delta layer. Real Docker engine, real tars.
 * Every case compares the change snapshot with the whole-stream snapshot of the same container, byte for byte.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { snapshotSandbox, type SnapshotTimings, type WorkspaceSnapshotMode } from '../../src/session/snapshot-sandbox.js';
import { diffListings } from '../../src/session/workspace-changes.js';
import { listWorkspace, parseListing } from '../../src/session/workspace-listing.js';
import { tempDir } from '../snapshot/helpers.js';

const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]); // "café.txt" in latin-1: not UTF-8

const open: DockerSandbox[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** path (hex of the name bytes) → type, permission bits, sha256 of content / link target. */
function describeBytes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: Buffer): void => {
    const abs = Buffer.concat([Buffer.from(`${root}/`), rel]);
    for (const name of readdirSync(abs, { encoding: 'buffer' }).sort(Buffer.compare)) {
      const p = rel.length ? Buffer.concat([rel, Buffer.from('/'), name]) : name;
      const full = Buffer.concat([Buffer.from(`${root}/`), p]);
      const st = lstatSync(full);
      const key = p.toString('latin1');
      const mode = (st.mode & 0o777).toString(8);
      if (st.isSymbolicLink()) out[key] = `link -> ${readlinkSync(full, { encoding: 'buffer' }).toString('hex')}`;
      else if (st.isDirectory()) {
        out[key] = `dir ${mode}`;
        visit(p);
      } else if (st.isFile()) out[key] = `file ${mode} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
      else out[key] = 'special';
    }
  };
  visit(Buffer.alloc(0));
  return out;
}

/** A small repository with the usual and the odd: nested dirs, a dash name, a latin-1 name, links, memories/. */
function workspace(): string {
  const dir = tempDir('mnemara-change-ws-');
  mkdirSync(join(dir, 'src/lib'), { recursive: true });
  mkdirSync(join(dir, 'docs/old'), { recursive: true });
  mkdirSync(join(dir, 'memories'), { recursive: true });
  mkdirSync(join(dir, 'node_modules/.cache'), { recursive: true });
  writeFileSync(join(dir, 'src/main.ts'), 'export const answer = 41;\n');
  writeFileSync(join(dir, 'src/lib/util.ts'), 'export const x = 1;\n');
  writeFileSync(join(dir, 'src/lib/keep.ts'), 'unchanged\n');
  writeFileSync(join(dir, 'README.md'), '# demo\n');
  writeFileSync(join(dir, 'run.sh'), 'echo hi\n', { mode: 0o644 });
  writeFileSync(join(dir, '-dash'), 'a name that looks like an option\n');
  writeFileSync(join(dir, 'docs/old/a.md'), 'a\n');
  writeFileSync(join(dir, 'docs/old/b.md'), 'b\n');
  writeFileSync(join(dir, 'memories/MEMORY.md'), '# Memory\n');
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), LATIN1]), 'latin-1 name\n');
  symlinkSync('src/main.ts', join(dir, 'main-link'));
  for (let i = 0; i < 200; i++) writeFileSync(join(dir, 'src', `gen${i}.ts`), `export const v${i} = ${i};\n`);
  return dir;
}

/** A restored sandbox with its baseline listing, as the session has it after step 3. */
async function restored(tag: string): Promise<{ sb: DockerSandbox; store: DirectoryStore; parent: string; baseline: Awaited<ReturnType<typeof listWorkspace>> }> {
  const store = await openStore(join(tempDir('mnemara-change-store-'), 'store'));
  const m = await store.create({ dir: workspace() }, { lineage: 'change', kind: 'workspace' });
  const sb = await DockerSandbox.create({ sessionId: `change-${tag}` });
  open.push(sb);
  await sb.putArchive(await store.exportTar(m.id), sb.workspaceDir);
  const baseline = await listWorkspace(sb, { pause: true });
  return { sb, store, parent: m.id, baseline };
}

async function run(sb: DockerSandbox, script: string): Promise<void> {
  const r = await sb.exec(['bash', '-c', `set -e\n${script}`]);
  expect(r.exitCode, r.stderr).toBe(0);
}

/** Snapshots the sandbox both ways (changes, whole stream) and restores both for comparison. */
async function bothWays(ctx: Awaited<ReturnType<typeof restored>>): Promise<{ mode: WorkspaceSnapshotMode | undefined; changes: string; full: string; skipped: string[]; timings: SnapshotTimings }> {
  const report: { mode?: WorkspaceSnapshotMode; timings?: SnapshotTimings } = {};
  const ignore = ['node_modules/.cache'];
  const a = await snapshotSandbox(ctx.sb, ctx.store, { lineage: 'change', kind: 'workspace', parent: ctx.parent, ignore }, { listing: ctx.baseline, parent: ctx.parent, ignore }, report);
  const b = await snapshotSandbox(ctx.sb, ctx.store, { lineage: 'change', kind: 'workspace', parent: ctx.parent, ignore });
  const changes = join(tempDir(), 'changes');
  const full = join(tempDir(), 'full');
  await ctx.store.restoreToDirectory(a.id, changes);
  await ctx.store.restoreToDirectory(b.id, full);
  return { mode: report.mode, changes, full, skipped: (a.skipped ?? []).map((s) => s.path), timings: report.timings ?? {} };
}

describe('change snapshot of a restored sandbox (Docker)', () => {
  it('finds edits, deletions, mode changes, renames, new odd files and a forged mtime, and equals the whole-stream snapshot byte for byte', async () => {
    const ctx = await restored('edits');
    await run(ctx.sb, [
      // Same size, new content, mtime forged back to the restored file's: only ctime tells.
      'm=$(stat -c %y src/lib/util.ts); printf "export const x = 2;\\n" > src/lib/util.ts; touch -d "$m" src/lib/util.ts',
      'echo "export const answer = 42;" > src/main.ts',
      'rm README.md',
      'rm -r docs/old',
      'chmod 755 run.sh',
      'mv src/gen7.ts src/renamed.ts',
      'mkfifo agent.fifo',
      'mkdir -p new/deep && echo new > new/deep/file.txt && ln -s ../README.md new/dangling',
      `printf 'x' > "$(printf 'nouveau-\\xff')"`,
      'echo second > ./-dash2',
      'mkdir -p node_modules/.cache && echo cache > node_modules/.cache/big.bin',
    ].join('\n'));
    const { mode, changes, full, skipped } = await bothWays(ctx);
    expect(mode).toMatchObject({ kind: 'changes' });
    if (mode?.kind === 'changes') {
      expect(mode.paths).toBeLessThan(20); // the 200 unchanged generated files did not come out
      expect(mode.deleted).toBe(3); // README.md, docs/old, src/gen7.ts
    }
    expect(describeBytes(changes)).toEqual(describeBytes(full));
    const tree = describeBytes(changes);
    expect(tree['README.md']).toBeUndefined();
    expect(tree['docs/old']).toBeUndefined();
    expect(tree['src/gen7.ts']).toBeUndefined();
    expect(tree['src/renamed.ts']).toMatch(/^file /);
    expect(tree['run.sh']).toMatch(/^file 755 /);
    expect(readFileSync(join(changes, 'src/lib/util.ts'), 'utf8')).toBe('export const x = 2;\n');
    expect(readFileSync(join(changes, 'src/main.ts'), 'utf8')).toBe('export const answer = 42;\n');
    expect(tree[Buffer.from('nouveau-\xff', 'latin1').toString('latin1')]).toMatch(/^file /);
    expect(tree[LATIN1.toString('latin1')]).toMatch(/^file /);
    expect(readlinkSync(join(changes, 'new/dangling'))).toBe('../README.md');
    expect(tree['agent.fifo']).toBeUndefined();
    expect(skipped).toContain('agent.fifo');
    expect(tree['node_modules/.cache/big.bin']).toBeUndefined();
  }, 120_000);

  it('a run that changed nothing gives an empty delta equal to the parent', async () => {
    const ctx = await restored('nothing');
    const { mode, changes, full } = await bothWays(ctx);
    expect(mode).toEqual({ kind: 'changes', paths: 0, deleted: 0, bytes: 0 });
    expect(describeBytes(changes)).toEqual(describeBytes(full));
  }, 120_000);

  it('a directory whose mode changed comes out whole, and a file replaced by a directory too', async () => {
    const ctx = await restored('dirmode');
    await run(ctx.sb, 'chmod 700 src/lib && rm -- -dash && mkdir -- -dash && echo in > ./-dash/inner');
    const { mode, changes, full } = await bothWays(ctx);
    expect(mode).toMatchObject({ kind: 'changes' });
    expect(describeBytes(changes)).toEqual(describeBytes(full));
    expect(describeBytes(changes)['src/lib']).toBe('dir 700');
  }, 120_000);

  it('falls back to the whole stream when the end listing cannot be taken (a directory the agent made unreadable)', async () => {
    const ctx = await restored('unreadable');
    await run(ctx.sb, 'echo changed > src/main.ts && chmod 000 docs');
    const { mode, changes, full } = await bothWays(ctx);
    expect(mode).toMatchObject({ kind: 'full' });
    expect(mode?.kind === 'full' && mode.reason).toMatch(/listing failed/);
    expect(describeBytes(changes)).toEqual(describeBytes(full));
    expect(readFileSync(join(changes, 'src/main.ts'), 'utf8')).toBe('changed\n');
  }, 120_000);

  it('falls back to the whole stream when the workspace root changed mode or a change is too large', async () => {
    const ctx = await restored('root');
    await run(ctx.sb, 'chmod 700 .');
    expect((await bothWays(ctx)).mode).toMatchObject({ kind: 'full', reason: /workspace root/ });
    const big = await restored('big');
    await run(big.sb, 'head -c 1000 /dev/urandom > blob');
    const after = await listWorkspace(big.sb);
    expect(diffListings(big.baseline, after, () => false, { maxEntries: 10, maxBytes: 100 })).toMatchObject({ ok: false, reason: /changed bytes/ });
  }, 120_000);
});

describe('listings that cannot be trusted', () => {
  const rec = (path: string, fields: string): Buffer => Buffer.concat([Buffer.from(`${fields} `), Buffer.from(path), Buffer.from([0])]);
  const listing = (at: string, ...records: Buffer[]): Buffer => Buffer.concat([Buffer.from(`${at}\0`), rec('', 'd 755 1 4096 100.0'), ...records]);

  it('a ctime that went back, or a clock that went back, refuses the changes', () => {
    const before = parseListing(listing('200.5', rec('a', 'f 644 7 3 150.0000000001')));
    const back = parseListing(listing('300.0', rec('a', 'f 644 7 5 149.0')));
    expect(diffListings(before, back, () => false)).toMatchObject({ ok: false, reason: /ctime of "a" went back/ });
    expect(diffListings(before, parseListing(listing('100.0', rec('a', 'f 644 7 3 150.0000000001'))), () => false)).toMatchObject({ ok: false, reason: /clock went back/ });
  });

  it('a truncated, malformed or duplicated listing is refused, not half-used', () => {
    expect(() => parseListing(Buffer.from('200.0\0d 755 1 4096 100.0 '))).toThrow(/ends inside a record/);
    expect(() => parseListing(listing('200.0', rec('a', 'f 644 x 3 150.0')))).toThrow(/does not parse/);
    expect(() => parseListing(listing('200.0', rec('a', 'f 644 7 3 150.0'), rec('a', 'f 644 7 3 150.0')))).toThrow(/twice/);
    expect(() => parseListing(Buffer.from('200.0\0f 644 7 3 150.0 a\0'))).toThrow(/root/);
    expect(() => parseListing(Buffer.from('not-a-clock\0'))).toThrow(/clock/);
  });

  it('an edit that keeps size, mode and inode but moves ctime is a change; one that moves only mtime cannot exist', () => {
    const before = parseListing(listing('200.0', rec('a', 'f 644 7 3 150.0'), rec('b', 'f 644 8 3 150.0')));
    const after = parseListing(listing('300.0', rec('a', 'f 644 7 3 250.0'), rec('b', 'f 644 8 3 150.0')));
    expect(diffListings(before, after, () => false)).toMatchObject({ ok: true, changes: { scope: ['a'], send: ['a'] } });
  });
});

// Keep the helpers honest: the byte description must see a difference in content and in mode.
describe('describeBytes', () => {
  it('tells content and mode apart', () => {
    const d = tempDir();
    writeFileSync(join(d, 'f'), 'one');
    const a = describeBytes(d);
    chmodSync(join(d, 'f'), 0o600);
    expect(describeBytes(d)).not.toEqual(a);
  });
});
