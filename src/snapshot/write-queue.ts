import { Worker } from 'node:worker_threads';

/**
 * The writer thread's code (plain CommonJS, so it runs the same under tsx, vitest and the built CLI): executes
 * batches of file-system operations in order, with synchronous calls, and acks each batch. After the first
 * failure it executes nothing more and answers every later batch with that failure. A batch is one buffer of
 * records (see `RECORD_HEAD`): kind (0 mkdir -p, 1 create a new file with O_EXCL | O_NOFOLLOW, 2 symlink,
 * 3 hard link), flags (1: fchmod after open; 2 and 4: the first and second names were strings, decoded back to
 * strings so errors name them as before), mode, mtime (ms), the byte lengths of the first name and of the second
 * name or the file's content, then those bytes.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const WRITE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
let failure;
function name(b, off, len, isString) {
  return isString ? b.toString('utf8', off, off + len) : b.subarray(off, off + len);
}
function run(b, end) {
  for (let at = 0; at < end; ) {
    const kind = b[at], flags = b[at + 1], mode = b.readUInt32LE(at + 2), mtime = b.readDoubleLE(at + 6);
    const len1 = b.readUInt32LE(at + 14), len2 = b.readUInt32LE(at + 18);
    const p = name(b, at + 22, len1, flags & 2);
    const off2 = at + 22 + len1;
    at = off2 + len2;
    if (kind === 0) fs.mkdirSync(p, { recursive: true, mode });
    else if (kind === 1) {
      const fd = fs.openSync(p, WRITE_NEW, mode & 0o777);
      try {
        for (let done = 0; done < len2; ) done += fs.writeSync(fd, b, off2 + done, len2 - done);
        if (flags & 1) fs.fchmodSync(fd, mode);
        fs.futimesSync(fd, mtime / 1000, mtime / 1000);
      } finally {
        fs.closeSync(fd);
      }
    } else if (kind === 2) {
      fs.symlinkSync(name(b, off2, len2, flags & 4), p);
      try { fs.lutimesSync(p, mtime / 1000, mtime / 1000); } catch {}
    } else fs.linkSync(p, name(b, off2, len2, flags & 4));
  }
}
parentPort.on('message', ({ id, data, end }) => {
  if (!failure) {
    try {
      run(Buffer.from(data), end);
    } catch (err) {
      const path = err.path === undefined || typeof err.path === 'string' ? err.path : new Uint8Array(err.path);
      failure = { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, path };
    }
  }
  // The batch's buffer goes back to be filled again: fresh pages cost a page fault each, more than the copy.
  parentPort.postMessage({ id, failure, data }, [data]);
});
`;

/** Bytes before a record's names and content: kind, flags, mode, mtime, two lengths (see `WORKER_SOURCE`). */
const RECORD_HEAD = 22;

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
  /** Records queued in the current batch (`data`, `used` bytes of it). */
  private count = 0;
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
    this.worker.on('message', (m: { id: number; data: ArrayBuffer; failure?: { message: string; code?: string; errno?: number; syscall?: string; path?: string | Uint8Array } }) => {
      if (m.data.byteLength === BATCH_BYTES) this.spare.push(m.data);
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
    this.record(0, path, mode, 0, undefined, 0, false);
    this.recorded();
  }

  /**
   * Queues the creation of the new file `path` holding `chunks` (in order; copied now, so the caller may reuse
   * them), with permission bits `mode` (fchmod'ed after open when `fchmod`, i.e. when the umask would clear some)
   * and `mtimeMs`.
   */
  file(path: FsPath, mode: number, mtimeMs: number, chunks: Buffer[], fchmod: boolean): void {
    let length = 0;
    for (const c of chunks) length += c.length;
    const at = this.record(1, path, mode, mtimeMs, undefined, length, fchmod);
    let to = at;
    for (const c of chunks) to += c.copy(this.data!, to);
    this.recorded();
  }

  /** Queues a symlink at `path` pointing to `target` (data, never followed), with `mtimeMs` set on the link. */
  symlink(path: FsPath, target: FsPath, mtimeMs: number): void {
    this.record(2, path, 0, mtimeMs, target, 0, false);
    this.recorded();
  }

  /** Queues a hard link `path` to the already queued (or written) regular file `existing`. */
  link(existing: FsPath, path: FsPath): void {
    this.record(3, existing, 0, 0, path, 0, false);
    this.recorded();
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

  /**
   * Appends one record to the batch (sending the batch first when it has no room) and returns the offset where
   * its `content` bytes go (the caller copies them there, then calls `recorded`). Names are written as UTF-8 when given as strings
   * (and flagged so the writer hands strings to `fs`), as they are when given as bytes.
   */
  private record(kind: number, first: FsPath, mode: number, mtimeMs: number, second: FsPath | undefined, content: number, fchmod: boolean): number {
    const len1 = typeof first === 'string' ? Buffer.byteLength(first) : first.length;
    const len2 = second === undefined ? content : typeof second === 'string' ? Buffer.byteLength(second) : second.length;
    const size = RECORD_HEAD + len1 + len2;
    if (this.data && this.used + size > this.data.length) this.send();
    if (!this.data) {
      const reuse = size <= BATCH_BYTES ? this.spare.pop() : undefined;
      this.data = reuse ? Buffer.from(reuse) : Buffer.allocUnsafeSlow(Math.max(BATCH_BYTES, size));
    }
    const b = this.data;
    const at = this.used;
    b[at] = kind;
    b[at + 1] = (fchmod ? 1 : 0) | (typeof first === 'string' ? 2 : 0) | (typeof second === 'string' ? 4 : 0);
    b.writeUInt32LE(mode >>> 0, at + 2);
    b.writeDoubleLE(mtimeMs, at + 6);
    b.writeUInt32LE(len1, at + 14);
    b.writeUInt32LE(len2, at + 18);
    let to = at + RECORD_HEAD;
    to += typeof first === 'string' ? b.write(first, to, len1, 'utf8') : first.copy(b, to);
    if (second !== undefined) to += typeof second === 'string' ? b.write(second, to, len2, 'utf8') : second.copy(b, to);
    this.used = at + size;
    this.count += 1;
    return to;
  }

  /** Sends the batch once it holds `BATCH_OPS` records, whatever its data. */
  private recorded(): void {
    if (this.count >= BATCH_OPS) this.send();
  }

  private send(): void {
    if (this.count === 0) return;
    const id = this.nextId++;
    this.waiting.set(id, () => undefined);
    const data = this.data!.buffer as ArrayBuffer;
    this.worker.postMessage({ id, data, end: this.used }, [data]);
    this.count = 0;
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
