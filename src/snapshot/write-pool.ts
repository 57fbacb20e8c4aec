import { close, constants, fchmod, fstat, futimes, open, write } from 'node:fs';
import { createHash } from 'node:crypto';
import { fsPath } from './names.js';
import { statKey } from './walk.js';

/** O_EXCL|O_NOFOLLOW: never reuse or follow anything already at the path. */
const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Small files being created at once: enough to keep the thread pool's 4 threads busy, bounded in memory. */
export const WRITES_IN_FLIGHT = 16;

type Done = (err: NodeJS.ErrnoException | null) => void;

/**
 * Creates small files on libuv's thread pool, several at a time, while the caller goes on parsing the archive:
 * creating a file (open with O_CREAT|O_EXCL, write, futimes, close) is mostly time in the kernel, and a restore
 * that waits for each one in turn (as `tar -x` does) leaves the other core and the decompressor idle. The caller
 * keeps the order rules: directories exist before a file is submitted into them, and `drain()` is awaited
 * before anything that could touch a path being written (replacing or whiting out a path, a hard link to a file,
 * setting directory modes at the end). The first error is thrown by the next `submit` or `drain`.
 */
export class FileWritePool {
  private inFlight = 0;
  private waiters: Array<() => void> = [];
  private failure: Error | undefined;

  constructor(private readonly limit = WRITES_IN_FLIGHT) {}

  /**
   * Queues the creation of `target` (which must not exist) with `data`, permission bits `mode` and `mtime`
   * (ms since the epoch); fchmod only when `umask` clears bits of `mode`. With `onWritten`, it gets the content's
   * sha256 (hex) and the file's stat key after writing. Waits while `limit` writes are in flight.
   */
  async submit(
    target: string,
    data: Buffer,
    mode: number,
    mtime: number,
    umask: number,
    onWritten?: (hash: string, key: string) => void,
  ): Promise<void> {
    if (this.failure) throw this.failure;
    while (this.inFlight >= this.limit) await new Promise<void>((r) => this.waiters.push(r));
    if (this.failure) throw this.failure;
    this.inFlight += 1;
    const finish = (err: Error | null): void => {
      if (err && !this.failure) this.failure = err;
      this.inFlight -= 1;
      this.waiters.shift()?.();
      if (this.inFlight === 0) for (const w of this.waiters.splice(0)) w();
    };
    const needsChmod = (mode & ~umask & 0o777) !== mode;
    const t = mtime / 1000;
    open(fsPath(target), WRITE_NEW, mode & 0o777, (err, fd) => {
      if (err) return finish(err);
      const closeWith = (e: Error | null): void => close(fd, (ce) => finish(e ?? ce));
      const afterTimes: Done = (e) => {
        if (e || !onWritten) return closeWith(e);
        fstat(fd, (se, st) => {
          if (!se) onWritten(createHash('sha256').update(data).digest('hex'), statKey(st));
          closeWith(se);
        });
      };
      const afterWrite: Done = (e) => {
        if (e) return closeWith(e);
        const times = (): void => futimes(fd, t, t, afterTimes);
        if (needsChmod) fchmod(fd, mode, (ce) => (ce ? closeWith(ce) : times()));
        else times();
      };
      const writeFrom = (off: number): void => {
        if (off >= data.length) return afterWrite(null);
        write(fd, data, off, data.length - off, null, (we, n) => (we ? closeWith(we) : writeFrom(off + n)));
      };
      writeFrom(0);
    });
  }

  /** Resolves once nothing is in flight; throws the first error any write had. */
  async drain(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((r) => this.waiters.push(r));
    if (this.failure) throw this.failure;
  }
}
