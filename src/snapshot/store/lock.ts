import { hostname } from 'node:os';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { MnemaraError } from '../../config/errors.js';

const HOST = hostname();

export interface LockOptions {
  /** Give up after this many ms (default 15,000). */
  timeoutMs?: number;
  /** A lock older than this is taken to be left by a crash even if its owner cannot be checked (default 60,000 ms). */
  staleMs?: number;
}

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
 * `<pid> <host> <ms>`. A lock whose owner on this host is dead, or that is older than `staleMs`, is broken:
 * it is first renamed to a unique name (so two breakers cannot both delete a fresh lock) and removed.
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
      } finally {
        await fh.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const content = await readFile(lockPath, 'utf8').catch(() => null);
    const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (content !== null && (ownerAlive(content) === false || age > staleMs)) {
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
