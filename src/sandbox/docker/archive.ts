import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { SandboxError } from '../errors.js';
import { statusOf } from './client.js';
import { rawExec } from './exec.js';

/**
 * Extracts an uncompressed tar stream into `dir` (created when missing) by piping it to `tar -x` run as the
 * sandbox user: entries end up owned by that user whatever the headers say, and the user's permissions bound
 * where they can land. Modes are kept (`-p`); directory modes are set at the end (`--delay-directory-restore`):
 * a snapshot's export is in byte order, where `ro-x/` comes between `ro/` and `ro/f`, and a read-only `ro/` set
 * before its files would refuse them to a user without root's rights. Throws `SandboxError('SANDBOX_FAILED')` with tar's message when
 * extraction fails (a truncated or invalid archive, an entry the user may not create).
 */
export async function putArchive(container: Docker.Container, docker: Docker, tar: Readable, dir: string): Promise<void> {
  const r = await rawExec(container, docker, {
    argv: ['bash', '-c', 'mkdir -p -- "$1" && exec tar -x -p --no-same-owner --delay-directory-restore -f - -C "$1"', 'put-archive', dir],
    stdin: tar,
    maxOutputBytes: 16 * 1024,
  });
  if (r.stdinError) {
    throw new SandboxError('SANDBOX_FAILED', `the archive stream for ${dir} failed: ${r.stdinError.message}`, {
      cause: r.stdinError,
    });
  }
  if (r.exitCode !== 0) {
    throw new SandboxError(
      'SANDBOX_FAILED',
      `could not extract the archive into ${dir}: ${r.stderr.text().trim() || `tar exited ${r.exitCode}`}`,
    );
  }
}

/**
 * Streams `dir`'s contents out of the container as an uncompressed tar (Docker's archive API, so the tree is
 * never held in memory). Entry names are relative to `dir`, prefixed `./` (the first entry is `./` itself);
 * symlinks are stored as links, not followed. Throws `SandboxError('ENOENT')` when `dir` does not exist.
 */
export async function getArchive(container: Docker.Container, dir: string): Promise<Readable> {
  try {
    return (await container.getArchive({ path: `${dir.replace(/\/+$/, '')}/.` })) as unknown as Readable;
  } catch (err) {
    if (statusOf(err) === 404) throw new SandboxError('ENOENT', `${dir} does not exist in the sandbox`, { cause: err });
    throw new SandboxError('SANDBOX_FAILED', `could not archive ${dir}: ${(err as Error).message}`, { cause: err });
  }
}
