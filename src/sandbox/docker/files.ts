import type Docker from 'dockerode';
import { SandboxError } from '../errors.js';
import { rawExec } from './exec.js';

/** Largest file `readFile` returns when the caller sets no `maxBytes`: 256 MiB. */
export const DEFAULT_READ_MAX_BYTES = 256 * 1024 ** 2;
const FILE_OP_TIMEOUT_MS = 300_000;

// Exit codes of the read script, chosen to not collide with cat's own.
const NOT_FOUND = 44;
const IS_DIR = 45;
const TOO_BIG = 46;
const NOT_REGULAR = 47;
// Only a regular file, and never more than the bound: `/dev/zero` (a repository's `memory_summary.md -> /dev/zero`)
// has size 0 and `cat` never ended, the host buffering ~8 MB/s (trial 26 N16); a file that grows while read stops
// at the bound too.
const READ_SCRIPT = `[ -e "$1" ] || exit ${NOT_FOUND}; [ -d "$1" ] && exit ${IS_DIR}; [ -f "$1" ] || exit ${NOT_REGULAR}; size=$(stat -L -c %s -- "$1") || exit 1; [ "$size" -le "$2" ] || { printf %s "$size" >&2; exit ${TOO_BIG}; }; exec head -c "$(( $2 + 1 ))" -- "$1"`;

/**
 * Reads a file inside the container as the sandbox user (so its permissions apply), byte-exact.
 * Throws `SandboxError` `ENOENT`, `EISDIR`, `NOT_REGULAR` (a device, FIFO or socket, or a link to one), `TOO_LARGE`
 * (over `maxBytes`, default 256 MiB) or `SANDBOX_FAILED`.
 */
export async function readFileIn(
  container: Docker.Container,
  docker: Docker,
  path: string,
  maxBytes = DEFAULT_READ_MAX_BYTES,
): Promise<Buffer> {
  const r = await rawExec(container, docker, {
    argv: ['bash', '-c', READ_SCRIPT, 'read', path, String(maxBytes)],
    timeoutMs: FILE_OP_TIMEOUT_MS,
    maxOutputBytes: maxBytes + 1,
  });
  switch (r.exitCode) {
    case 0: {
      if (r.stdout.truncated) throw tooLarge(path, r.stdout.totalBytes, maxBytes);
      const bytes = r.stdout.bytes();
      if (bytes.length > maxBytes) throw tooLarge(path, bytes.length, maxBytes);
      return bytes;
    }
    case NOT_FOUND:
      throw new SandboxError('ENOENT', `${path} does not exist in the sandbox`);
    case IS_DIR:
      throw new SandboxError('EISDIR', `${path} is a directory`);
    case NOT_REGULAR:
      throw new SandboxError('NOT_REGULAR', `${path} is not a regular file (a device, FIFO or socket): it is not read`);
    case TOO_BIG:
      throw tooLarge(path, Number(r.stderr.text()), maxBytes);
    default:
      throw new SandboxError('SANDBOX_FAILED', `could not read ${path}: ${r.stderr.text().trim() || `exit ${r.exitCode}`}`);
  }
}

/**
 * Writes a file inside the container as the sandbox user (parents created), so it is owned by that user;
 * `mode` (e.g. 0o755) is applied when given. Throws `SandboxError` `EISDIR` or `SANDBOX_FAILED`.
 */
export async function writeFileIn(
  container: Docker.Container,
  docker: Docker,
  path: string,
  data: string | Buffer,
  mode?: number,
): Promise<void> {
  const chmod = mode === undefined ? '' : ` && chmod ${(mode & 0o7777).toString(8)} -- "$1"`;
  const r = await rawExec(container, docker, {
    argv: ['bash', '-c', `[ -d "$1" ] && exit ${IS_DIR}; mkdir -p -- "$(dirname -- "$1")" && cat > "$1"${chmod}`, 'write', path],
    stdin: typeof data === 'string' ? Buffer.from(data, 'utf8') : data,
    timeoutMs: FILE_OP_TIMEOUT_MS,
    maxOutputBytes: 4096,
  });
  if (r.exitCode === 0) return;
  if (r.exitCode === IS_DIR) throw new SandboxError('EISDIR', `${path} is a directory`);
  throw new SandboxError('SANDBOX_FAILED', `could not write ${path}: ${r.stderr.text().trim() || `exit ${r.exitCode}`}`);
}

function tooLarge(path: string, size: number, max: number): SandboxError {
  return new SandboxError('TOO_LARGE', `${path} is ${size} bytes, over the limit of ${max}`, {
    hint: 'read it in parts (e.g. exec `head -c`), or raise maxBytes',
  });
}
