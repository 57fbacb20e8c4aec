import { mkdtemp, rm, rmdir, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Paths at most this long (bytes) are used as they are. */
const SHORT_BYTES = 128;

/**
 * A short path that reaches the directory `dir` (absolute): `dir` itself when it is short, else a symlink
 * `<tmp>/mnemara-XXXXXX/d` → `dir` in a fresh 0700 directory nobody else can write. PATH_MAX (4,096 bytes) limits
 * the string one system call takes, not the path the kernel resolves, so a restore that names its files through
 * the alias no longer depends on how long the target's own path is: a tree `create` kept (paths up to 4,096 bytes
 * relative to its root, minus the root's own length at create time) is written under a longer prefix too.
 * `release()` removes the alias (never what it points to).
 */
export async function shortPath(dir: string): Promise<{ path: string; release: () => Promise<void> }> {
  if (Buffer.byteLength(dir) <= SHORT_BYTES) return { path: dir, release: async () => undefined };
  const holder = await mkdtemp(join(tmpdir(), 'mnemara-'));
  const alias = join(holder, 'd');
  try {
    await symlink(dir, alias);
  } catch (err) {
    await rm(holder, { recursive: true, force: true });
    throw err;
  }
  return {
    path: alias,
    release: async () => {
      await unlink(alias).catch(() => undefined);
      await rmdir(holder).catch(() => undefined);
    },
  };
}
