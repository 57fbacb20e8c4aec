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
  if (r.exitCode !== 0 && /No space left on device|Disk quota exceeded/.test(r.stderr.text())) {
    throw await doesNotFit(container, docker, dir, r.stderr.text());
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

/**
 * The error of an extraction that ran out of space: one message with the sizes of `dir`'s filesystem in the
 * sandbox (its quota, `sandbox.maxWorkspaceBytes`, or the host's free space), what to do, and at most three lines
 * of tar's output (a real repository in a small home gave hundreds of "Cannot mkdir: No space left on device").
 */
async function doesNotFit(container: Docker.Container, docker: Docker, dir: string, stderr: string): Promise<SandboxError> {
  const df = await rawExec(container, docker, { argv: ['df', '-B1', '--output=size,used,avail', '--', dir], maxOutputBytes: 4096 }).catch(() => null);
  const [size, used, avail] = (df?.stdout.text().trim().split('\n')[1] ?? '').trim().split(/\s+/).map(Number);
  const mib = (n: number | undefined): string => (n !== undefined && Number.isFinite(n) ? `${(n / 1048576).toFixed(0)} MiB` : '?');
  const lines = stderr.trim().split('\n');
  const shown = lines.slice(0, 3).join('\n    ') + (lines.length > 3 ? `\n    … (${lines.length - 3} more lines like these)` : '');
  return new SandboxError(
    'DISK_FULL',
    `the workspace does not fit into the sandbox: ${dir} has ${mib(size)} (${mib(used)} used, ${mib(avail)} free) and the snapshot is larger. tar said:\n    ${shown}`,
    {
      hint: 'Free space on the disk of MNEMARA_HOME (`df -h "$MNEMARA_HOME"`; `mnemara snapshot gc`), move MNEMARA_HOME to a larger disk, or raise sandbox.maxWorkspaceBytes (the /workspace quota; it is cut to the free space of <home>/sandbox-disks). `mnemara snapshot show LINEAGE` gives the snapshot\'s size.',
    },
  );
}
