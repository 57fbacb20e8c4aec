import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';
import { isValidLineage } from '../snapshot/id.js';

const run = promisify(execFile);

/** One lineage segment from free text: runs of characters a lineage may not hold become `-`. */
function segment(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .replace(/\.(lock|tmp)$/, '-$1');
}

/** Hosts whose owner and repository names are case-insensitive (`github.com/Acme/Mono` is `github.com/acme/mono`). */
const CASE_INSENSITIVE_HOSTS = new Set(['github.com', 'www.github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

/**
 * The lineage a git remote URL names: `host/owner/repo`, the same for every clone and every form of the URL
 * (`git@github.com:me/app.git`, `https://user:token@github.com/me/app`, `ssh://git@github.com:22/me/app.git`
 * all give `github.com/me/app`). Credentials, ports, schemes and a `.git` suffix are dropped. The host is
 * lower-cased, and so is the path on hosts known to ignore its case (GitHub, GitLab.com, Bitbucket, Codeberg);
 * a self-hosted server keeps the path's case. A local path remote gives its last two segments under `local/`.
 * `null` when nothing usable is left.
 */
export function lineageFromRemote(url: string): string | null {
  let rest = url.trim();
  let host = '';
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(.*)$/i.exec(rest);
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.*)$/.exec(rest);
  if (scheme) {
    host = scheme[2]!.replace(/^.*@/, '').replace(/:\d*$/, '');
    rest = scheme[3]!;
    if (scheme[1]!.toLowerCase() === 'file') host = 'local';
  } else if (scp && !rest.startsWith('/')) {
    host = scp[1]!;
    rest = scp[2]!;
  } else {
    host = 'local';
  }
  const parts = rest
    .replace(/\.git\/?$/, '')
    .split('/')
    .map(segment)
    .filter((s) => s !== '');
  const lowerHost = host.toLowerCase();
  // On these hosts `Acme/Mono` and `acme/mono` are one repository; elsewhere the path's case may matter.
  const kept = host === 'local' ? parts.slice(-2) : CASE_INSENSITIVE_HOSTS.has(lowerHost) ? parts.map((p) => p.toLowerCase()) : parts;
  const name = [segment(lowerHost), ...kept].filter((s) => s !== '').join('/').slice(0, 200);
  return kept.length > 0 && isValidLineage(name) ? name : null;
}

/**
 * The lineage of a workspace without a git remote: its directory's name plus the first 8 hex digits of the
 * sha256 of its absolute path (`/home/me/app` → `app-1a2b3c4d`), so two projects that both live in a folder
 * called `app` do not share a lineage.
 */
export function directoryLineage(workspace: string): string {
  const abs = resolve(workspace);
  const name = segment(basename(abs)).slice(0, 180) || 'workspace';
  return `${name}-${createHash('sha256').update(abs).digest('hex').slice(0, 8)}`;
}

/** The lineage a workspace gets when none is named, and where the name came from. */
export interface WorkspaceLineage {
  lineage: string;
  source: 'git remote' | 'directory';
  /** The checked-out git branch when it is not the default one (the lineage is then `branch/<branch>/<repository's>`). */
  branch?: string;
  /**
   * The lineage of the repository's default branch, when `lineage` is a branch's: a branch whose lineage has no
   * head yet starts from a fresh copy of the checkout with this lineage's memory (`resolveStart`'s
   * `memoryFromIfEmpty`), so a new feature branch sees its own code and the project's lessons.
   */
  base?: string;
}

/**
 * The first segment of a branch's lineage: `branch/<branch>/<repository's lineage>`. The branch goes in front,
 * not below the repository's lineage, so that `github.com/acme/mono/feature` (a package folder) and the branch
 * `feature` of `github.com/acme/mono` can never be the same lineage.
 * No default lineage of a repository starts with `branch/` (a host has a dot, `local/`, or a name-and-hash).
 */
const BRANCH_PREFIX = 'branch';

/**
 * The default lineage of `workspace`: from its git remote (`origin`, else the first remote) when it is a git
 * checkout with one (plus the path below the top level when the workspace is a subdirectory), so a renamed or
 * re-cloned checkout finds its memory; on a branch other than the default one (the remote's HEAD, else `main`
 * or `master`), `branch/<branch>/` before that lineage, since a lineage's head is a whole workspace, code included,
 * and a run on `feature-x` must not start from `main`'s tree. A detached HEAD (a CI checkout of a commit) has no
 * branch and gets the repository's lineage. Otherwise `directoryLineage`. Runs `git` (5 s timeout each); no git,
 * no checkout or no remote all fall back to the directory.
 */
export async function workspaceLineage(workspace: string): Promise<WorkspaceLineage> {
  const dir = resolve(workspace);
  try {
    const { stdout } = await run('git', ['-C', dir, 'config', '--get-regexp', '^remote\\..*\\.url$'], { timeout: 5000 });
    const remotes = stdout
      .split('\n')
      .map((l) => /^remote\.(.+)\.url (.+)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ name: m[1]!, url: m[2]! }));
    const remote = remotes.find((r) => r.name === 'origin') ?? remotes[0];
    const repo = remote ? lineageFromRemote(remote.url) : null;
    const lineage = repo ? await withinRepository(repo, dir) : null;
    if (lineage && remote) {
      const branch = await nonDefaultBranch(dir, remote.name);
      const named = branch === null ? null : [BRANCH_PREFIX, ...branchSegments(branch), lineage].join('/');
      if (named && named.length <= 200 && isValidLineage(named)) return { lineage: named, source: 'git remote', branch: branch!, base: lineage };
      return { lineage, source: 'git remote' };
    }
  } catch {
    // not a git checkout, no remote, or no git at all
  }
  return { lineage: directoryLineage(dir), source: 'directory' };
}

/**
 * A branch name as lineage segments: `feature/x` → `feature`, `x`. A name that had to be changed to fit (other
 * characters than `[A-Za-z0-9._-]`) gets the first 8 hex digits of its sha256, so `feature/ä` and `feature/ö`
 * stay two lineages.
 */
function branchSegments(branch: string): string[] {
  const segs = branch.split('/').map(segment).filter((x) => x !== '');
  if (segs.join('/') === branch) return segs;
  const tag = createHash('sha256').update(branch).digest('hex').slice(0, 8);
  return segs.length === 0 ? [`b-${tag}`] : [...segs.slice(0, -1), `${segs[segs.length - 1]}-${tag}`];
}

/** The checked-out branch when it is not the remote's default one; `null` on the default branch or a detached HEAD. */
async function nonDefaultBranch(dir: string, remote: string): Promise<string | null> {
  const git = (args: string[]): Promise<string | null> =>
    run('git', ['-C', dir, ...args], { timeout: 5000 }).then((r) => r.stdout.trim() || null, () => null);
  const branch = await git(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (branch === null) return null;
  const remoteHead = await git(['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`]);
  const defaults = remoteHead !== null ? [remoteHead.slice(remote.length + 1)] : ['main', 'master'];
  return defaults.includes(branch) ? null : branch;
}

/**
 * A workspace below the checkout's top level (a package of a monorepo) is its own project: the remote's lineage
 * plus the path from the top (`github.com/acme/mono/packages/app`), so two packages never share a head and a
 * re-clone still finds each. `null` when the result is not a valid lineage (the caller uses the directory's).
 */
async function withinRepository(repo: string, dir: string): Promise<string | null> {
  const { stdout } = await run('git', ['-C', dir, 'rev-parse', '--show-prefix'], { timeout: 5000 });
  const below = stdout.trim().split('/').map(segment).filter((s) => s !== '');
  if (below.length === 0) return repo;
  const name = [repo, ...below].join('/');
  return name.length <= 200 && isValidLineage(name) ? name : null;
}

/**
 * The lineage `mnemara run -w DIR` uses when none is named (`workspaceLineage`'s name): every command that
 * takes `-w DIR` must find a run's lineage through this one function, or a git checkout's runs (on the
 * remote's lineage) and its memory commands (on the directory's) would look in different places.
 */
export async function defaultLineage(workspace: string): Promise<string> {
  return (await workspaceLineage(workspace)).lineage;
}
