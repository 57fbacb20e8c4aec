import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MnemaraError } from '../config/errors.js';

/** A lock older than this (ms) is taken over whoever holds it: the pipeline's steps are far shorter. */
const STALE_MS = 15 * 60_000;
/** How long a second pipeline waits for the first (ms) before giving up with `BUSY`. */
const DEFAULT_WAIT_MS = 30_000;
const POLL_MS = 100;
/** The holder writes its pid right after creating the lock: a lock still without one after this (ms) is stale. */
const EMPTY_STALE_MS = 5_000;

export interface MemoryLockOptions {
  /** How long to wait for another live holder, in ms (default 30,000; 0 = fail at once). */
  waitMs?: number;
}

type Holder = 'free' | 'dead' | 'live';

// A lock whose process is gone (a crash, a kill -9) is taken over at once rather than after STALE_MS; the pid
// is the holder's on this host. A lock with no pid yet is being created: live, unless it stayed so for
// EMPTY_STALE_MS (its writer died, or the disk was full, between the create and the write).
async function holder(lockFile: string): Promise<{ state: Holder; pid?: number; ino?: number }> {
  const st = await stat(lockFile).catch(() => undefined);
  if (!st) return { state: 'free' };
  if (Date.now() - st.mtimeMs >= STALE_MS) return { state: 'dead', ino: st.ino };
  const pid = Number.parseInt((await readFile(lockFile, 'utf8').catch(() => '')).trim(), 10);
  if (!(pid > 0) && Date.now() - st.mtimeMs >= EMPTY_STALE_MS) return { state: 'dead', ino: st.ino };
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return { state: 'live', ...(pid > 0 ? { pid } : {}) };
  try {
    process.kill(pid, 0);
    return { state: 'live', pid };
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? { state: 'dead', pid, ino: st.ino } : { state: 'live', pid };
  }
}

/**
 * Runs `fn` holding `memories/.lock` (created with O_EXCL, holding the pid), so that two pipelines on one memory
 * layout (a session and `mnemara memory consolidate`, or several `mnemara learn` at once) never interleave their
 * writes. A second caller waits for the first (polling, up to `waitMs`); a lock whose process no longer runs,
 * or older than 15 minutes, is taken over.
 * @throws MnemaraError `BUSY` when another live process still holds the lock after `waitMs`.
 */
export async function withMemoryLock<T>(lockFile: string, fn: () => Promise<T>, options: MemoryLockOptions = {}): Promise<T> {
  await mkdir(dirname(lockFile), { recursive: true });
  const deadline = Date.now() + (options.waitMs ?? DEFAULT_WAIT_MS);
  let fh;
  for (;;) {
    try {
      fh = await open(lockFile, 'wx');
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const h = await holder(lockFile);
    if (h.state === 'free') continue;
    if (h.state === 'dead') {
      // Remove only the lock judged dead, not one a faster waiter has just created in its place.
      const now = await stat(lockFile).catch(() => undefined);
      if (now && now.ino === h.ino) await rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new MnemaraError('BUSY', `another mnemara process${h.pid ? ` (pid ${h.pid})` : ''} is updating this memory (${lockFile})`, {
        hint: `Wait for it to finish and retry; if no mnemara process is running, delete ${lockFile}.`,
      });
    }
    await sleep(POLL_MS + Math.floor(Math.random() * POLL_MS));
  }
  try {
    await fh.writeFile(`${process.pid}\n`);
    await fh.close();
    return await fn();
  } finally {
    await rm(lockFile, { force: true });
  }
}
