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
import { defaultLineage, directoryLineage, lineageFromRemote, resolveStart, workspaceLineage } from '../../src/session/start.js';
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

  // Trial 27 F8: `snapshot list --lineage nosuch` said "no snapshots of lineage nosuch" and exited 0, while
  // `memory show`, `apply` and `lineage show` exit 2 on an unknown lineage.
  it('snapshot list --lineage of an unknown lineage exits 2 naming the lineages; an empty store lists nothing, exit 0', async () => {
    const human = await cli(['snapshot', 'list', '--lineage', 'nosuch']);
    expect(human.exitCode).toBe(2);
    expect(human.stderr).toMatch(/lineage nosuch has no snapshots in /);
    expect(human.stderr).toContain(REMOTE_LINEAGE);
    const json = await cli(['snapshot', 'list', '--lineage', 'nosuch', '--json']);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.stringMatching(/lineage nosuch/), hint: expect.stringContaining(REMOTE_LINEAGE) } });
    const empty = await execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'snapshot', 'list'], { env: { MNEMARA_HOME: join(root, 'empty-home') }, reject: false });
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(/^no snapshots in /);
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

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

describe('the default lineage and the case of names', () => {
  it('lower-cases the host always, and the owner and repository on hosts that ignore their case', () => {
    for (const url of ['git@github.com:Acme/Mono.git', 'https://GitHub.com/acme/MONO', 'ssh://git@GITHUB.COM:22/ACME/mono.git', 'https://gitlab.com/Acme/Mono']) {
      expect(lineageFromRemote(url)?.replace(/^gitlab/, 'github')).toBe('github.com/acme/mono');
    }
    expect(lineageFromRemote('https://user:tok@Bitbucket.org/Team/Repo.git')).toBe('bitbucket.org/team/repo');
    // A self-hosted server may tell Acme from acme: only its host is lower-cased.
    expect(lineageFromRemote('https://Git.Example.com/Acme/Mono.git')).toBe('git.example.com/Acme/Mono');
  });
});

describe('the default lineage and git branches', { timeout: 120_000 }, () => {
  it('two clones on different branches get different lineages; the default branch and a detached HEAD get the repository\'s', async () => {
    const upstream = join(root, 'upstream');
    mkdirSync(upstream);
    git(upstream, 'init', '-q');
    writeFileSync(join(upstream, 'app.py'), 'print(1)\n');
    git(upstream, 'add', '.');
    git(upstream, 'commit', '-qm', 'one');
    const main = join(root, 'clone-main');
    const feature = join(root, 'clone-feature');
    execFileSync('git', ['clone', '-q', upstream, main]);
    execFileSync('git', ['clone', '-q', upstream, feature]);
    // The URL the clones were made from is a local path; give them the GitHub remote a real user has.
    for (const c of [main, feature]) git(c, 'remote', 'set-url', 'origin', 'git@github.com:Acme/Mono.git');
    git(feature, 'checkout', '-qb', 'feature/Login');

    expect(await workspaceLineage(main)).toEqual({ lineage: 'github.com/acme/mono', source: 'git remote' });
    expect(await workspaceLineage(feature)).toEqual({
      lineage: 'branch/feature/Login/github.com/acme/mono',
      source: 'git remote',
      branch: 'feature/Login',
      base: 'github.com/acme/mono',
    });
    // One checkout switching branches follows them; a detached HEAD (CI checking out a commit) has no branch.
    git(feature, 'checkout', '-q', 'main');
    expect(await defaultLineage(feature)).toBe('github.com/acme/mono');
    git(feature, 'checkout', '-q', '--detach');
    expect(await defaultLineage(feature)).toBe('github.com/acme/mono');
    // A branch whose name had to change to fit a lineage keeps a hash of it: two such branches stay apart.
    git(feature, 'checkout', '-qb', 'fix/ä');
    const a = await defaultLineage(feature);
    git(feature, 'checkout', '-qb', 'fix/ö');
    const b = await defaultLineage(feature);
    expect(a).toMatch(/^branch\/fix.*[0-9a-f]{8}\/github\.com\/acme\/mono$/);
    expect(a).not.toBe(b);
  });

  it("a branch's first run starts from its own checkout with the default branch's memory, later runs from its head", async () => {
    const store = await openStore(join(root, 'branch-store'));
    const base = 'github.com/acme/mono';
    const branch = `branch/feature/login/${base}`;
    const ws = join(root, 'branch-ws');
    mkdirSync(join(ws, 'memories'), { recursive: true });
    writeFileSync(join(ws, 'memories', 'MEMORY.md'), '# Lessons of main\n');
    const mainHead = await store.create({ dir: ws }, { lineage: base, kind: 'workspace' });
    await store.advanceHead(base, null, mainHead.id);

    expect(await resolveStart(store, { lineage: branch, memoryFromIfEmpty: base })).toEqual({ kind: 'memory-from', snapshotId: mainHead.id, headAtStart: null });
    // Without a base (a named lineage) an empty lineage is a fresh start, as before.
    expect(await resolveStart(store, { lineage: branch })).toEqual({ kind: 'fresh', snapshotId: null, headAtStart: null });
    const branchHead = await store.create({ dir: ws }, { lineage: branch, kind: 'workspace' });
    await store.advanceHead(branch, null, branchHead.id);
    expect(await resolveStart(store, { lineage: branch, memoryFromIfEmpty: base })).toEqual({ kind: 'head', snapshotId: branchHead.id, headAtStart: branchHead.id });
  });
});
