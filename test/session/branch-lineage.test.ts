/**
 * The default lineage of a git checkout follows its branch (issue 9, trial item 6): a run on `main` lands on
 * `github.com/acme/app`; after `git checkout -b feature/x` in the same checkout, a run without --lineage lands
 * on `branch/feature/x/github.com/acme/app`, starts from the checkout as it is now (not from main's head, which
 * holds main's tree), with main's memory laid over it, and leaves main's head where it was.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionEvent } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { startMessagesServer, systemText, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
const git = (...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: dirs.workspace, encoding: 'utf8' });

beforeAll(async () => {
  dirs = scratch();
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'initial');
  git('remote', 'add', 'origin', 'git@github.com:Acme/App.git');
  server = await startMessagesServer(policy(FIX_BUG));
}, 60_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('the default lineage of a checkout that switches branches', () => {
  it("a branch's first run gets the branch's code with main's memory, on its own lineage", async () => {
    const config = testConfig(dirs.home, server.url);
    const onMain = await runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config });
    expect(onMain.lineage).toBe('github.com/acme/app');
    expect(onMain.outcome).toBe('completed');

    git('checkout', '-qb', 'feature/x');
    writeFileSync(join(dirs.workspace, 'FEATURE.md'), 'only on the branch\n');
    const events: SessionEvent[] = [];
    const before = server.messageRequests.length;
    const onBranch = await runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config }, { onEvent: (e) => events.push(e) });
    expect(onBranch.lineage).toBe('branch/feature/x/github.com/acme/app');
    expect(events.find((e) => e.type === 'started')).toMatchObject({ lineageSource: 'git remote', branch: 'feature/x' });
    expect(onBranch.start).toEqual({ kind: 'memory-from', snapshotId: onMain.head, headAtStart: null });
    expect(systemText(server.messageRequests[before]!)).toContain('./scripts/check.sh'); // main's lesson came along

    const store = await openStore(join(dirs.home, 'store'));
    expect(await store.getHead('github.com/acme/app')).toBe(onMain.head);
    expect(await store.getHead(onBranch.lineage)).toBe(onBranch.head);
    const tree = await store.tree(onBranch.head!);
    expect(tree.get(['FEATURE.md'])?.entry.type).toBe('file'); // the branch's code, not main's head
  }, 240_000);
});
