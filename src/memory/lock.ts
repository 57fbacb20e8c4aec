import { open, rm, stat } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MnemaraError } from '../config/errors.js';

/** A lock older than this (ms) is taken over: its holder crashed. The pipeline's steps are far shorter. */
const STALE_MS = 15 * 60_000;

/**
 * Runs `fn` holding `memories/.lock` (created with O_EXCL), so that two pipelines on one memory layout
 * (a session and `mnemara memory consolidate`, say) never interleave their writes.
 * @throws MnemaraError `BUSY` when another live process holds the lock.
 */
export async function withMemoryLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockFile), { recursive: true });
  let fh;
  try {
    fh = await open(lockFile, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const st = await stat(lockFile).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs < STALE_MS) {
      throw new MnemaraError('BUSY', `another mnemara process is updating this memory (${lockFile})`, {
        hint: `Wait for it to finish; if none is running, delete ${lockFile}.`,
      });
    }
    await rm(lockFile, { force: true });
    fh = await open(lockFile, 'wx');
  }
  try {
    await fh.writeFile(`${process.pid}\n`);
    await fh.close();
    return await fn();
  } finally {
    await rm(lockFile, { force: true });
  }
}
