import { Worker } from 'node:worker_threads';

/**
 * The writer thread's code (plain CommonJS, so it runs the same under tsx, vitest and the built CLI): executes
 * batches of file-system operations in order, with synchronous calls, and acks each batch. After the first
 * failure it executes nothing more and answers every later batch with that failure. Operations (arrays):
 * `[0, path, mode]` mkdir -p; `[1, path, mode, mtimeMs, offset, length, fchmod]` create a new file (O_EXCL |
 * O_NOFOLLOW) with `length` bytes of the batch's data from `offset`; `[2, path, linkTarget, mtimeMs]` symlink;
 * `[3, existing, path]` hard link.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const WRITE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
let failure;
function file(op, data) {
  const [, path, mode, mtime, off, len, fchmod] = op;
  const fd = fs.openSync(path, WRITE_NEW, mode & 0o777);
  try {
    for (let done = 0; done < len; ) done += fs.writeSync(fd, data, off + done, len - done);
    if (fchmod) fs.fchmodSync(fd, mode);
    fs.futimesSync(fd, mtime / 1000, mtime / 1000);
  } finally {
    fs.closeSync(fd);
  }
}
parentPort.on('message', ({ id, ops, data }) => {
  if (!failure) {
    const bytes = data ? Buffer.from(data) : undefined;
    try {
      for (const op of ops) {
        if (op[0] === 0) fs.mkdirSync(op[1], { recursive: true, mode: op[2] });
        else if (op[0] === 1) file(op, bytes);
        else if (op[0] === 2) {
          fs.symlinkSync(op[2], op[1]);
          try { fs.lutimesSync(op[1], op[3] / 1000, op[3] / 1000); } catch {}
        } else fs.linkSync(op[1], op[2]);
      }
    } catch (err) {
      const path = err.path === undefined || typeof err.path === 'string' ? err.path : new Uint8Array(err.path);
      failure = { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, path };
    }
  }
  // The batch's buffer goes back to be filled again: fresh pages cost a page fault each, more than the copy.
  parentPort.postMessage({ id, failure, data }, data ? [data] : []);
});
`;

/** A path as `fs` takes it: a string, or the bytes of a name that is not UTF-8 (`fsPath` in names.ts). */
type FsPath = string | Buffer;

/** Data is gathered into batches of this size (a file larger than that gets a batch of its own). */
const BATCH_BYTES = 1024 * 1024;
/** A batch is sent once it holds this many operations, whatever its data. */
const BATCH_OPS = 512;
/** Batches sent but not yet executed, at most: bounds the memory held for the writer (about 8 MiB). */
const MAX_IN_FLIGHT = 8;

/**
 * File-system writes of a restore handed to a writer thread, in order, so that creating files (the restore's
 * floor: open, write, futimes, close per file) runs beside the main thread's tar parsing and restore guard, as
 * `tar -xzf` runs gzip and tar side by side. Only creation goes here: the caller decides every operation (the
 * guard has passed it) and calls `flush()` before anything that must see the disk up to date (a removal, a
 * large file written directly, directory modes at the end). A failed operation stops the writer; the error (a
 * Node system error with `code`, `syscall`, `path`) is thrown by the next `flush()` or `room()`, never lost.
 * `close()` stops the thread; call it before removing the directory written into.
 */
export class WriteQueue {
  private readonly worker: Worker;
  private ops: unknown[][] = [];
  private data: Buffer | undefined;
  private used = 0;
  private nextId = 0;
  private readonly waiting = new Map<number, () => void>();
  private failure: Error | undefined;
  private roomWaiter: (() => void) | undefined;
  /** Batch buffers the writer has handed back, to be filled again. */
  private readonly spare: ArrayBuffer[] = [];

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.on('message', (m: { id: number; data?: ArrayBuffer; failure?: { message: string; code?: string; errno?: number; syscall?: string; path?: string | Uint8Array } }) => {
      if (m.data?.byteLength === BATCH_BYTES) this.spare.push(m.data);
      if (m.failure && !this.failure) {
        const { message, ...fields } = m.failure;
        const path = typeof fields.path === 'string' || fields.path === undefined ? fields.path : Buffer.from(fields.path);
        this.failure = Object.assign(new Error(message), { ...fields, path });
      }
      this.settle(m.id);
    });
    this.worker.on('error', (err) => {
      this.failure ??= err;
      for (const id of [...this.waiting.keys()]) this.settle(id);
    });
  }

  /** Queues `mkdir -p path` with `mode` (permission bits, before the umask). */
  mkdir(path: FsPath, mode: number): void {
    this.push([0, path, mode]);
  }

  /**
   * Queues the creation of the new file `path` holding `chunks` (in order; copied now, so the caller may reuse
   * them), with permission bits `mode` (fchmod'ed after open when `fchmod`, i.e. when the umask would clear some)
   * and `mtimeMs`.
   */
  file(path: FsPath, mode: number, mtimeMs: number, chunks: Buffer[], fchmod: boolean): void {
    let length = 0;
    for (const c of chunks) length += c.length;
    if (this.data && this.used + length > this.data.length) this.send();
    if (length > 0) {
      if (!this.data) {
        const reuse = length <= BATCH_BYTES ? this.spare.pop() : undefined;
        this.data = reuse ? Buffer.from(reuse) : Buffer.allocUnsafeSlow(Math.max(BATCH_BYTES, length));
      }
      for (const c of chunks) this.used += c.copy(this.data, this.used);
    }
    this.push([1, path, mode, mtimeMs, this.used - length, length, fchmod]);
  }

  /** Queues a symlink at `path` pointing to `target` (data, never followed), with `mtimeMs` set on the link. */
  symlink(path: FsPath, target: FsPath, mtimeMs: number): void {
    this.push([2, path, target, mtimeMs]);
  }

  /** Queues a hard link `path` to the already queued (or written) regular file `existing`. */
  link(existing: FsPath, path: FsPath): void {
    this.push([3, existing, path]);
  }

  /**
   * Resolves at once while fewer than `MAX_IN_FLIGHT` batches wait; otherwise when the writer has caught up
   * (the main thread must not run far ahead and hold the layer in memory). Throws the writer's failure.
   */
  async room(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.waiting.size < MAX_IN_FLIGHT) return;
    await new Promise<void>((resolve) => (this.roomWaiter = resolve));
    if (this.failure) throw this.failure;
  }

  /** Sends what is queued and waits until every operation so far is on disk. Throws the writer's failure. */
  async flush(): Promise<void> {
    this.send();
    const last = this.nextId - 1;
    if (this.waiting.has(last)) await new Promise<void>((resolve) => {
      const settle = this.waiting.get(last)!;
      this.waiting.set(last, () => (settle(), resolve()));
    });
    if (this.failure) throw this.failure;
  }

  /** Stops the writer thread (whatever it was doing); resolves once it has stopped. */
  async close(): Promise<void> {
    await this.worker.terminate();
    for (const id of [...this.waiting.keys()]) this.settle(id);
  }

  private push(op: unknown[]): void {
    // A path as bytes is sent as its own exact copy: a Buffer from the pool would clone the whole 8 KiB slab.
    if (typeof op[1] !== 'string') op[1] = new Uint8Array(op[1] as Buffer);
    if ((op[0] === 2 || op[0] === 3) && typeof op[2] !== 'string') op[2] = new Uint8Array(op[2] as Buffer);
    this.ops.push(op);
    if (this.ops.length >= BATCH_OPS) this.send();
  }

  private send(): void {
    if (this.ops.length === 0) return;
    const id = this.nextId++;
    this.waiting.set(id, () => undefined);
    const data = this.data?.buffer as ArrayBuffer | undefined;
    this.worker.postMessage({ id, ops: this.ops, data }, data ? [data] : []);
    this.ops = [];
    this.data = undefined;
    this.used = 0;
  }

  private settle(id: number): void {
    const done = this.waiting.get(id);
    if (!done) return;
    this.waiting.delete(id);
    done();
    if (this.roomWaiter && (this.waiting.size < MAX_IN_FLIGHT || this.failure)) {
      const wake = this.roomWaiter;
      this.roomWaiter = undefined;
      wake();
    }
  }
}
