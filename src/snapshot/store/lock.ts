import { hostname } from 'node:os';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { MnemaraError } from '../../config/errors.js';
import { logger } from '../../config/logger.js';

const HOST = hostname();
const log = logger('snapshot.lock');
/**
 * A holder writes its info right after the O_EXCL create, so a lock still empty (or unparsable) after this many
 * ms was left by a writer that died or failed (ENOSPC) in between: it is stale.
 */
export const EMPTY_LOCK_STALE_MS = 5_000;

export interface LockOptions {
  /** Give up after this many ms (default 15,000). */
  timeoutMs?: number;
  /** A lock older than this is taken to be left by a crash even if its owner cannot be checked (default 60,000 ms). */
  staleMs?: number;
}

/** `<pid> <host> <ms> <nonce>`: what a holder writes. */
const LOCK_INFO_RE = /^\d+ \S+ \d+(?: \S+)?$/;

function ownerAlive(content: string): boolean | undefined {
  const [pid, host] = content.split(' ');
  if (host !== HOST || !pid) return undefined;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` holding an exclusive lock file at `lockPath`, created with O_EXCL and holding
 * `<pid> <host> <ms> <nonce>`. A lock whose owner on this host is dead, that is older than `staleMs`, or that
 * still holds no readable holder info `EMPTY_LOCK_STALE_MS` after its creation, is broken:
 * it is first renamed to a unique name (so two breakers cannot both delete a fresh lock) and removed.
 * When the holder info cannot be written (ENOSPC, EIO), the new lock file is removed before the error is thrown.
 * Throws `MnemaraError('LOCK_TIMEOUT')` when the lock stays held past `timeoutMs`.
 */
export async function withLock<T>(lockPath: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const staleMs = options.staleMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const mine = `${process.pid} ${HOST} ${Date.now()} ${randomBytes(4).toString('hex')}`;
  for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
    try {
      const fh = await open(lockPath, 'wx', 0o644);
      try {
        await fh.writeFile(mine);
        await fh.close();
      } catch (err) {
        // ENOSPC/EIO after the create: an empty lock left behind would block every later writer of this ref.
        await fh.close().catch(() => {});
        await unlink(lockPath).catch(() => {});
        throw err;
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const content = await readFile(lockPath, 'utf8').catch(() => null);
    const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    const unreadable = content !== null && !LOCK_INFO_RE.test(content.trim()) && age > EMPTY_LOCK_STALE_MS;
    if (unreadable) log.warn({ lockPath, content: content.slice(0, 80), ageMs: age }, 'taking over a lock without holder info (its writer died or its disk was full)');
    if (content !== null && (unreadable || ownerAlive(content) === false || age > staleMs)) {
      const aside = `${lockPath}.${randomBytes(4).toString('hex')}.stale`;
      if (await rename(lockPath, aside).then(() => true, () => false)) {
        const moved = await readFile(aside, 'utf8').catch(() => null);
        // Someone replaced the stale lock between our read and the rename: it is theirs, put it back.
        if (moved !== null && moved !== content) await rename(aside, lockPath).catch(() => unlink(aside).catch(() => {}));
        else await unlink(aside).catch(() => {});
      }
      continue;
    }
    if (Date.now() > deadline) {
      throw new MnemaraError('LOCK_TIMEOUT', `could not lock ${lockPath} within ${timeoutMs} ms (held by: ${content ?? 'unknown'})`, {
        hint: 'Another mnemara process is updating this lineage; retry, or remove the lock file if no such process runs.',
      });
    }
    await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
  }
  try {
    return await fn();
  } finally {
    const content = await readFile(lockPath, 'utf8').catch(() => null);
    if (content === mine) await unlink(lockPath).catch(() => {});
  }
}
