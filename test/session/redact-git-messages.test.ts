/**
 * Trial 24 (low): a token the agent wrote into a commit message stayed in the workspace snapshot's plain-text
 * `.git/COMMIT_EDITMSG` and reflogs (`.git/logs/HEAD`, `logs/refs/heads/…`), which git needs none of. They are
 * redacted in place before the snapshot; the objects stay whole (the commit itself is reported by the object scan,
 * `secret-git-objects.test.ts`), so the repository still checks out and its reflog still reads. The user's own
 * files of that kind, unchanged by the run, are left alone. On the local sandbox and in the real Docker sandbox.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { redactGitMessagesInSandbox } from '../../src/session/redact-git-messages.js';

const GH = 'ghp_FAKEcommitMessage0a1B2c3D4e5F6g7H8i9J';
const PW = 'Rotate9Staging!x';
const git = 'git -c user.name=a -c user.email=a@b.invalid -c init.defaultBranch=main';

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  for (const sb of sandboxes) await sb.close();
});

async function check(sb: Sandbox): Promise<void> {
  sandboxes.push(sb);
  // Before the run: the user's repository, with a branch whose reflog tells a token (untouched by the run, kept).
  await sb.exec(`${git} init -q . && echo a > a.txt && ${git} add a.txt && ${git} commit -qm before && ${git} checkout -qb old && ${git} commit -q --allow-empty -m 'old ${GH}' && ${git} checkout -q main`);
  await sb.exec('sleep 1.1');
  const since = Number((await sb.exec('date +%s')).stdout.trim());
  await sb.exec('sleep 1.1');
  const r = await sb.exec(
    `echo b > b.txt && ${git} add b.txt && ${git} commit -qm 'deploy with ${GH}; staging password = ${PW}' && ${git} checkout -qb feature && ${git} commit -q --allow-empty -m 'token ${GH} again'`,
  );
  expect(r.exitCode, r.stderr).toBe(0);
  expect((await sb.exec('cat .git/COMMIT_EDITMSG .git/logs/HEAD')).stdout).toContain(GH);

  const redacted = await redactGitMessagesInSandbox(sb, since);
  expect(redacted.sort()).toEqual(['.git/COMMIT_EDITMSG', '.git/logs/HEAD', '.git/logs/refs/heads/feature', '.git/logs/refs/heads/main']);
  const notes = (await sb.exec('cat .git/COMMIT_EDITMSG .git/logs/HEAD .git/logs/refs/heads/main .git/logs/refs/heads/feature')).stdout;
  expect(notes).not.toContain(GH);
  expect(notes).not.toContain(PW);
  expect(notes).toContain('[REDACTED:github_token]');
  // The reflog still reads (hashes and times kept), the repository is whole, the objects unchanged.
  expect((await sb.exec(`${git} reflog -n 3 --format=%gs`)).stdout).toMatch(/commit: token \[REDACTED:github_token\] again/);
  expect((await sb.exec(`${git} fsck --no-dangling 2>&1; echo status=$?`)).stdout).toMatch(/status=0/);
  expect((await sb.exec(`${git} log -1 --format=%s main`)).stdout).toContain(GH);
  // Not the run's: left as it was.
  expect((await sb.exec('cat .git/logs/refs/heads/old')).stdout).toContain(GH);
  // Idempotent: nothing left to redact.
  expect(await redactGitMessagesInSandbox(sb, since)).toEqual([]);
}

describe("git's own notes of the run's commits", () => {
  it('lose the secret and keep the repository whole, on the local sandbox', async () => {
    await check(await LocalSandbox.create({ sessionId: 'git-messages-local' }));
  }, 60_000);

  it('the same in the Docker sandbox', async () => {
    await check(await DockerSandbox.create({ sessionId: 'git-messages-docker' }));
  }, 120_000);

  it('a workspace without a repository: nothing to do', async () => {
    const sb = await LocalSandbox.create({ sessionId: 'git-messages-none' });
    sandboxes.push(sb);
    expect(await redactGitMessagesInSandbox(sb, null)).toEqual([]);
  });
});
