/**
 * Paths that reach PATH_MAX (4096 bytes counted from /) are left out and listed in `skipped`, never dropped
 * without a word: on the host (`snapshot create DIR`, which failed with a bare ENAMETOOLONG) and in the Docker
 * sandbox, both when the whole workspace stream is read (Docker's archive API leaves such a path out of its tar
 * silently: the new-user trial's run exited 0 with nothing in `skipped`) and when only the changes are taken.
 * A path just under the limit is kept. Real Docker engine; the model is the scripted server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session.js';
import { TOO_LONG_TO_READ } from '../../src/snapshot/limits.js';
import { openStore } from '../../src/snapshot/index.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, removeSessionContainers, testConfig } from '../session/harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A temp dir removed after the test by `rm -rf` (node's rm cannot name a path over PATH_MAX). */
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'mnemara-long-'));
  cleanups.push(() => void execFileSync('rm', ['-rf', d]));
  return d;
}

/**
 * A Python script (the sandbox has python3) that makes, under the current directory, one file per length in
 * argv: a chain of 200-byte directories `<tag>ddd…` ending in a file `f<tag>xxx…`, the whole relative path
 * exactly that many bytes. Made through directory descriptors, as a build tool nesting deeply would: a path over
 * PATH_MAX can be made this way but never named whole.
 */
const MAKE_LONG = `
import os, sys
for n in map(int, sys.argv[2:]):
    tag = sys.argv[1] + str(n)
    segs, total = [], 0
    while n - total > 256:
        segs.append(tag.ljust(200, "d")); total += 201
    segs.append(("f" + tag).ljust(n - total, "x"))
    fd = os.open(".", os.O_RDONLY)
    for p in segs[:-1]:
        try: os.mkdir(p, dir_fd=fd)
        except FileExistsError: pass
        nfd = os.open(p, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = nfd
    f = os.open(segs[-1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd); os.write(f, tag.encode()); os.close(f); os.close(fd)
`;


/** The relative path MAKE_LONG gives for `tag` and length `n` (to find it in a restore). */
function longPath(tag: string, n: number): string {
  const segs: string[] = [];
  let total = 0;
  while (n - total > 256) {
    segs.push(tag.padEnd(200, 'd'));
    total += 201;
  }
  segs.push(`f${tag}`.padEnd(n - total, 'x'));
  return segs.join('/');
}

describe('paths that reach PATH_MAX', () => {
  it('a host snapshot lists them in skipped and keeps the rest, a path just under the limit included', async () => {
    const root = tempDir();
    const ws = join(root, 'ws');
    execFileSync('mkdir', ['-p', ws]);
    execFileSync('python3', ['-c', MAKE_LONG, 'h', '3000', '4200'], { cwd: ws });
    execFileSync('sh', ['-c', 'echo top > top.txt'], { cwd: ws });
    const store = await openStore(join(root, 'store'));
    const m = await store.create({ dir: ws }, { lineage: 'long', kind: 'workspace' });
    const tooLong = (m.skipped ?? []).filter((s) => s.reason === TOO_LONG_TO_READ);
    expect(tooLong).toHaveLength(1);
    expect(longPath('h4200', 4200).startsWith(tooLong[0]!.path)).toBe(true);
    const out = join(root, 'out');
    await store.restoreToDirectory(m.id, out);
    expect(readFileSync(join(out, 'top.txt'), 'utf8')).toBe('top\n');
    expect(readFileSync(join(out, longPath('h3000', 3000)), 'utf8')).toBe('h3000');
  }, 120_000);

  it('in the Docker sandbox, the whole stream and the changes both list them in skipped', async () => {
    const s = scratch('long-paths');
    cleanups.push(() => void execFileSync('rm', ['-rf', s.root]));
    // /workspace/ is 11 bytes: 4084 is the longest relative path the sandbox can name, 4085 is one too many.
    const run = (tag: string) => `python3 -c '${MAKE_LONG}' ${tag} 3000 4000 4084 4085 4300`;
    const server: MessagesServer = await startMessagesServer((req) => {
      const body = JSON.stringify(req.body);
      const tag = body.includes('Second') ? 'b' : 'a';
      return lastToolResults(req).length === 0 ? turn(toolUse('bash', { command: run(tag) })) : turn(text('Done.'));
    });
    cleanups.push(() => server.close());
    const config = testConfig(s.home, server.url);
    const store = await openStore(join(s.home, 'store'));

    const first = await runSession({ workspace: s.workspace, task: 'First: nest deeply.', config, lineage: 'long' });
    cleanups.push(async () => void (await removeSessionContainers(first.rolloutId)));
    expect(first.outcome).toBe('completed');
    expect(first.workspaceSnapshotMode).toMatchObject({ kind: 'full' });
    const second = await runSession({ workspace: s.workspace, task: 'Second: nest again.', config, lineage: 'long' });
    cleanups.push(async () => void (await removeSessionContainers(second.rolloutId)));
    expect(second.outcome).toBe('completed');
    expect(second.workspaceSnapshotMode).toMatchObject({ kind: 'changes' });

    // Every path the agent made is either in the head or listed in `skipped` with the reason: none vanishes.
    // 4085 and 4300 cannot be named in the sandbox at all; 3000 always fits; what lies between also depends on
    // the length of the store's own staging path on the host, so either outcome is right, silence is not.
    const out = join(s.root, 'out');
    await store.restoreToDirectory(second.head!, out);
    for (const [r, tag] of [[first, 'a'], [second, 'b']] as const) {
      const m = await store.get(r.workspaceSnapshot!);
      const tooLong = (m.skipped ?? []).filter((x) => x.reason === TOO_LONG_TO_READ).map((x) => x.path);
      const listed = (n: number): boolean => tooLong.some((p) => longPath(`${tag}${n}`, n).startsWith(p));
      for (const n of [3000, 4000, 4084, 4085, 4300]) {
        const kept = existsSync(join(out, longPath(`${tag}${n}`, n)));
        expect(kept !== listed(n), `${tag}${n}: kept ${kept}, skipped ${JSON.stringify(m.skipped)}`).toBe(true);
        if (kept) expect(readFileSync(join(out, longPath(`${tag}${n}`, n)), 'utf8')).toBe(`${tag}${n}`);
      }
      expect(listed(3000)).toBe(false);
      expect(listed(4085) && listed(4300), JSON.stringify(m.skipped)).toBe(true);
      expect(existsSync(join(out, `${tag}4300`.padEnd(200, 'd')))).toBe(true); // its short directories are kept
    }
  }, 400_000);
});
