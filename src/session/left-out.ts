import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';

const log = logger('session');

/** A file bigger than this is not set aside (it stays in the snapshot, reported): bytes. */
export const MAX_SET_ASIDE_BYTES = 16 * 1024 * 1024;

/** `<home>/left-out/<rollout-id>`: where the files a run's snapshot left out are kept for the user. */
export function leftOutDir(home: string, rolloutId: string): string {
  return join(home, 'left-out', rolloutId);
}

/**
 * Moves one workspace file that must not reach a snapshot layer (a credential file, a file holding a token) out
 * of the sandbox into `<home>/left-out/<rollout-id>/<path>` on the host, readable only by the user (directories
 * 0700, the file 0600), and removes it from the sandbox's workspace. Why a host copy: the host directory is never
 * changed by a run, so a file the run created and no snapshot holds would otherwise be lost with the container;
 * this copy is the user's, never read by mnemara again, never in a snapshot, a memory file or a model request.
 * `savedAs`: the copy's path under that folder, when it is not `rel` (a name that holds a token: its redacted name).
 *
 * Returns the host path, or `null` when the file could not be copied out (too large, unreadable, a path that
 * leaves the directory) or not removed afterwards: the caller then keeps it in the snapshot and says why, so
 * nothing is lost. Never throws.
 */
export async function setAside(sandbox: Sandbox, home: string, rolloutId: string, rel: string, savedAs: string = rel): Promise<string | null> {
  const root = leftOutDir(home, rolloutId);
  const target = join(root, savedAs);
  const inside = relative(root, target);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..') return null;
  try {
    const data = await sandbox.readFile(`${sandbox.workspaceDir}/${rel}`, { maxBytes: MAX_SET_ASIDE_BYTES });
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await writeFile(target, data, { mode: 0o600 });
    // Modes given to mkdir and writeFile apply only to what they create, after the umask: a folder or file that
    // was there already (another file of the run, an older version) keeps its own. Forced on the whole path.
    const top = join(home, 'left-out');
    for (let d = dirname(target); d.length >= top.length; d = dirname(d)) await chmod(d, 0o700);
    await chmod(target, 0o600);
  } catch (err) {
    log.warn({ path: rel, err: (err as Error).message }, 'could not copy a file out of the sandbox before leaving it out; it stays in the snapshot');
    return null;
  }
  const removed = await sandbox.exec(['rm', '-f', '--', `${sandbox.workspaceDir}/${rel}`], { timeoutMs: 10_000 }).catch(() => null);
  return removed?.exitCode === 0 ? target : null;
}
