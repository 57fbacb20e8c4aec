/**
 * A token the agent committed to git, even in a file a later commit deleted, lives on in a loose object under
 * `.git/objects/` (zlib'd, so `grep` cannot see it), and so in the workspace snapshot (eighth new-user trial,
 * HIGH). The files-the-run-wrote check inflates the loose objects the run wrote, reports the token, keeps the
 * object (taking it out would break the repository) and says how to rewrite the history. On the local sandbox and
 * in the real Docker sandbox (its image has python3 and git).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { leaveOutSecretFiles, secretFileMessage } from '../../src/session/secret-files.js';

const GH = 'ghp_FAKEgitObject0a1B2c3D4e5F6g7H8i9J0kLmN';
const ANT = 'sk-ant-api03-FAKEgitBefore9Xv2Lm7Rt4Wz8Kp1Ns6';
const git = 'git -c user.name=a -c user.email=a@b.invalid -c init.defaultBranch=main';

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  for (const sb of sandboxes) await sb.close();
});

async function check(sb: Sandbox): Promise<void> {
  sandboxes.push(sb);
  // The user's repository before the run: one commit that also holds a token (theirs, not the run's).
  await sb.exec(`${git} init -q . && printf 'OLD=${ANT}\\n' > old.env && ${git} add old.env && ${git} commit -qm before`);
  await sb.exec('sleep 1.1');
  const since = Number((await sb.exec('date +%s')).stdout.trim());
  await sb.exec('sleep 1.1');
  // The run: commits a token file, then deletes it in a second commit; plus an ordinary commit.
  const r = await sb.exec(
    `printf 'TOKEN=${GH}\\n' > leak.txt && ${git} add leak.txt && ${git} commit -qm leak && ${git} rm -q leak.txt && ${git} commit -qm unleak && echo ok > a.txt && ${git} add a.txt && ${git} commit -qm ordinary`,
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const left: string[] = [];
  const found = await leaveOutSecretFiles(sb, since, {
    wasThere: () => false,
    keep: false,
    leaveOut: async (rel) => {
      left.push(rel);
      return null;
    },
    skipDirs: [],
    skip: new Set(),
  });
  expect(found.map((f) => f.kinds)).toEqual([['github_token']]);
  const [f] = found;
  expect(f!.path).toMatch(/^\.git\/objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/);
  expect(f!.action).toBe('kept');
  expect(left).toEqual([]);
  expect(secretFileMessage(f!)).toMatch(/git gc --prune=now/);
  // The object is still there: the repository is whole.
  expect((await sb.exec(`${git} fsck --no-dangling 2>&1; echo status=$?`)).stdout).toMatch(/status=0/);
}

const SLACK = 'xoxb-123456789012-FAKEcommitMsg7Qz3Lr9Wx';

/**
 * Eleventh new-user trial (high): a repository inside the workspace (`git init` in a subfolder) was not read, so a
 * token committed then `git rm`'d there, and one in a commit message, stayed unreported.
 */
async function checkNested(sb: Sandbox): Promise<void> {
  sandboxes.push(sb);
  await sb.exec('sleep 1.1');
  const since = Number((await sb.exec('date +%s')).stdout.trim());
  await sb.exec('sleep 1.1');
  const r = await sb.exec(
    `mkdir -p tools/deploy && cd tools/deploy && ${git} init -q . && printf 'TOKEN=${GH}\\n' > leak.txt && ${git} add leak.txt && ${git} commit -qm add && ${git} rm -q leak.txt && ${git} commit -qm gone && echo ok > a.txt && ${git} add a.txt && ${git} commit -qm 'deploy with ${SLACK}'`,
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const found = await leaveOutSecretFiles(sb, since, { wasThere: () => false, keep: false, leaveOut: async () => null, skipDirs: [], skip: new Set() });
  // The objects: the deleted file's blob and the commit whose message holds the Slack token, reported and kept.
  const objects = found.filter((f) => /^tools\/deploy\/\.git\/objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(f.path));
  expect(objects.every((f) => f.action === 'kept')).toBe(true);
  expect([...new Set(objects.flatMap((f) => f.kinds))].sort()).toEqual(['github_token', 'slack_token']);
  expect(secretFileMessage(objects[0]!)).toMatch(/git gc --prune=now/);
  // Plain files of that repository that repeat the message (COMMIT_EDITMSG, the reflog) are files the run wrote.
  for (const f of found.filter((x) => !objects.includes(x))) expect(f.path, f.path).toMatch(/^tools\/deploy\/\.git\/(COMMIT_EDITMSG|logs\/)/);
}

describe('a token in a git object the run wrote', () => {
  it('in a repository inside the workspace, and in a commit message: reported and kept (local, Docker)', async () => {
    await checkNested(await LocalSandbox.create({ sessionId: 'git-objects-nested-local' }));
    await checkNested(await DockerSandbox.create({ sessionId: 'git-objects-nested-docker' }));
  }, 180_000);

  it('is reported and kept, on the local sandbox', async () => {
    await check(await LocalSandbox.create({ sessionId: 'git-objects-local' }));
  }, 60_000);

  it('is reported and kept, in the Docker sandbox', async () => {
    await check(await DockerSandbox.create({ sessionId: 'git-objects-docker' }));
  }, 120_000);
});
