/**
 * Claims under `<home>/tmp/`: one process at a time rescues a stranded sandbox (`rescue-<rollout-id>.claim`) or
 * runs `mnemara recover` (`recover.claim`). Two recovers started at once (or a recover beside the next session on
 * the lineage) each snapshotted the same killed session's container (issue 10 trial); the claim makes the second
 * skip, or wait for, what the first handles. A claim holds `<pid> <host>`; one whose process is gone on this host
 * (a kill -9) is taken over at once, so a killed recover never blocks the next.
 */
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MnemaraError } from '../config/errors.js';
import { processAlive } from './orphans.js';

const HOST = hostname();

/** A held claim: `release()` removes it (idempotent, never throws). */
export interface Claim {
  release(): Promise<void>;
}

/** Where the claim `name` of `home` lives. */
export const claimPath = (home: string, name: string): string => join(home, 'tmp', `${name}.claim`);

/** The holder of the claim file at `path`: its pid when a live process (or another host's) holds it; a dead one's inode. */
async function liveHolder(path: string): Promise<{ pid: number } | 'free' | { dead: number }> {
  const st = await stat(path).catch(() => null);
  if (!st) return 'free';
  const [pid, host] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
  // The file is linked in whole (content first), so an unreadable one is damaged, not half-written: stale.
  if (!pid || !host || !processAlive(Number(pid), host)) return { dead: st.ino };
  return { pid: Number(pid) };
}

/**
 * Takes the claim `name` of `home` when no live process holds it; returns `{heldBy: pid}` when one does. The
 * claim file is written beside it and hard-linked into place, so it is never seen empty. Throws what
 * the file system throws (ENOSPC: the caller goes on unclaimed or fails, as it chooses).
 */
export async function tryClaim(home: string, name: string): Promise<Claim | { heldBy: number }> {
  const path = claimPath(home, name);
  await mkdir(join(home, 'tmp'), { recursive: true });
  const mine = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(mine, `${process.pid} ${HOST}\n`);
  try {
    for (;;) {
      const took = await link(mine, path).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
          return false;
        },
      );
      if (took) {
        const ino = (await stat(path)).ino;
        return {
          release: async () => {
            // Only our own claim: a holder judged dead by mistake may have been replaced meanwhile.
            if ((await stat(path).catch(() => null))?.ino === ino) await rm(path, { force: true }).catch(() => undefined);
          },
        };
      }
      const h = await liveHolder(path);
      if (h === 'free') continue;
      if ('pid' in h) return { heldBy: h.pid };
      // Only the claim judged dead, not one a faster taker has just linked in its place.
      if ((await stat(path).catch(() => null))?.ino === h.dead) await rm(path, { force: true });
    }
  } finally {
    await rm(mine, { force: true }).catch(() => undefined);
  }
}

/**
 * Waits for the claim `name` of `home` (polling every ~200 ms, calling `onWait` once with the holder's pid when
 * it has to wait) and returns it. A live holder that never lets go (a stopped or hung process) would block the
 * caller for ever, so after `timeoutMs` (ms; default: no bound) it throws `MnemaraError('CLAIM_BUSY')` naming the
 * holder's pid. Throws what `tryClaim` throws.
 */
export async function waitClaim(home: string, name: string, onWait?: (pid: number) => void, timeoutMs = Infinity): Promise<Claim> {
  const started = Date.now();
  let told = false;
  for (;;) {
    const c = await tryClaim(home, name);
    if ('release' in c) return c;
    if (!told) onWait?.(c.heldBy);
    told = true;
    if (Date.now() - started >= timeoutMs) {
      throw new MnemaraError('CLAIM_BUSY', `process ${c.heldBy} still holds ${claimPath(home, name)} after ${Math.round(timeoutMs / 1000)} s`, {
        hint: `let it finish and try again; if it hangs, stop it (\`kill ${c.heldBy}\`; a claim of a process that is gone is taken over at once)`,
      });
    }
    await sleep(150 + Math.floor(Math.random() * 100));
  }
}
