import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { encodeName } from './names.js';
import { MEMBER_BYTES } from './parallel-gzip.js';

/** Header fields of one entry written by `TarWriter`. `mtime` in ms since the epoch; `size` in bytes. */
export interface TarEntryHeader {
  path: string;
  type: 'File' | 'Directory' | 'SymbolicLink' | 'Link';
  mode: number;
  mtime: number;
  size?: number;
  linkpath?: string;
  uid?: number;
  gid?: number;
}

const ZERO = Buffer.alloc(1024);

/** What a write to a destroyed `out` fails with: its own error, else an echo (`first-failure.ts`) of whatever destroyed it. */
function closedEarly(out: Writable): Error {
  return out.errored ?? Object.assign(new Error('the tar stream was closed before the archive was written'), { code: 'ERR_STREAM_DESTROYED' });
}

/**
 * Waits for `out` to drain, or fails when it is destroyed instead: a destroyed stream never drains, and one
 * destroyed by a failure elsewhere (the blob write's ENOSPC) emits no error here, so a bare `once('drain')`
 * waited forever and the process ended with nothing pending (exit 13, issue 10 trial).
 */
async function drained(out: Writable): Promise<void> {
  const stop = new AbortController();
  try {
    await Promise.race([
      once(out, 'drain', { signal: stop.signal }),
      once(out, 'close', { signal: stop.signal }).then(() => {
        throw closedEarly(out);
      }),
    ]);
  } finally {
    stop.abort();
  }
}
/**
 * Bytes per chunk handed to `out`: the gzip member size (`parallel-gzip.ts`), so a compressor takes each chunk
 * as one member without concatenating, and every chunk costs one thread-pool round trip, not one per entry
 * (per-entry writes made packing 2× slower on 10,000 small files).
 */
const CHUNK_BYTES = MEMBER_BYTES;

/** A file entry whose content is to be read straight into the stream's buffer (`TarWriter.inPlace`). */
export interface InPlaceEntry {
  /** Exactly the file's `size` bytes of the buffer: read the content into it, then `commit()` or drop it. */
  content: Buffer;
  /** Keeps the entry (header, content, padding) in the stream. Not calling it leaves the stream as before. */
  commit(): Promise<void>;
}

/**
 * Writes a POSIX (pax) tar stream entry by entry onto `out`, honouring back-pressure. Headers are encoded here
 * (ustar, with pax records for long names and sizes over 8 GiB; names that are not UTF-8 are written
 * byte for byte); node-tar's `Header` can only encode names as UTF-8.
 * Directory paths get a trailing `/`. Call `end()` to write the two zero blocks that close the archive.
 * Everything is assembled in buffers of `CHUNK_BYTES` that go to `out` whole and are never touched again; a
 * small file's content is read straight into one (`inPlace`), so its bytes are copied by nobody.
 */
export class TarWriter {
  bytes = 0;
  private buf = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  private used = 0;

  constructor(private readonly out: Writable) {}

  /** Copies `chunk` into the stream's buffers; full ones go to `out`. */
  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    let off = 0;
    while (off < chunk.length) {
      const n = Math.min(chunk.length - off, CHUNK_BYTES - this.used);
      chunk.copy(this.buf, this.used, off, off + n);
      this.used += n;
      off += n;
      if (this.used === CHUNK_BYTES) await this.flush();
    }
  }

  /** Hands the buffer filled so far to `out` (a new one takes its place), waiting for it to drain when it asks to. */
  async flush(): Promise<void> {
    if (this.used === 0) return;
    const data = this.used === CHUNK_BYTES ? this.buf : this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this.used = 0;
    if (this.out.destroyed) throw closedEarly(this.out);
    if (!this.out.write(data)) await drained(this.out);
  }

  /**
   * A regular file's entry of `size` bytes laid out in the current buffer, when header, content and padding
   * fit in what is left of it (else null: write it with `file`, or `header` + `write` + `pad`). The caller
   * reads the content into `content` and calls `commit()`; dropping it instead (the file changed while read)
   * leaves nothing in the stream.
   */
  inPlace(h: Omit<TarEntryHeader, 'type' | 'size'>, size: number): InPlaceEntry | null {
    const headers = this.headerBlocks({ ...h, type: 'File', size });
    if (!headers) return null;
    let hdrBytes = 0;
    for (const b of headers) hdrBytes += b.length;
    const padded = size + ((512 - (size % 512)) % 512);
    if (this.used + hdrBytes + padded > CHUNK_BYTES) return null;
    const start = this.used;
    const content = this.buf.subarray(start + hdrBytes, start + hdrBytes + size);
    const buf = this.buf;
    return {
      content,
      commit: async () => {
        if (this.buf !== buf || this.used !== start) throw new Error('TarWriter: an in-place entry was committed after other writes');
        let at = start;
        for (const b of headers) at += b.copy(buf, at);
        buf.fill(0, at + size, at + padded);
        this.used = at + padded;
        this.bytes += this.used - start;
        if (this.used === CHUNK_BYTES) await this.flush();
      },
    };
  }

  /** Writes a header; for files the caller then writes exactly `size` bytes and calls `pad(size)`. */
  async header(h: TarEntryHeader): Promise<void> {
    const blocks = this.headerBlocks(h);
    if (blocks) {
      for (const b of blocks) await this.write(b);
      return;
    }
    const { name, link, size, mtime } = headerFields(h);
    const split = splitUstar(name);
    const records: Buffer[] = [];
    // Names go in byte for byte (not UTF-8 ones too): GNU tar and Go keep bytes they cannot convert as they are.
    if (!split) records.push(paxRecord('path', name));
    if (link.length > 100) records.push(paxRecord('linkpath', link));
    if (size > MAX_OCTAL_SIZE) records.push(paxRecord('size', Buffer.from(String(size))));
    await this.writePax(records, name);
    await this.write(encodeHeader({ name: split ? split.name : name.subarray(-100), prefix: split ? split.prefix : EMPTY, flag: FLAGS[h.type], mode: h.mode, size: size > MAX_OCTAL_SIZE ? 0 : size, mtime, link: link.length > 100 ? link.subarray(0, 100) : link, uid: h.uid ?? 0, gid: h.gid ?? 0 }));
  }

  /** The header block of `h` when it needs no pax records (the common case), else null. */
  private headerBlocks(h: TarEntryHeader): Buffer[] | null {
    const { name, link, size, mtime } = headerFields(h);
    const split = splitUstar(name);
    if (!split || link.length > 100 || size > MAX_OCTAL_SIZE) return null;
    return [encodeHeader({ name: split.name, prefix: split.prefix, flag: FLAGS[h.type], mode: h.mode, size, mtime, link, uid: h.uid ?? 0, gid: h.gid ?? 0 })];
  }

  /**
   * A header-only FIFO (`6`) or device (`3`, `4`) entry, as Docker's archive API writes one; a reader in
   * source mode lists it as skipped. Device numbers are not kept (nothing restores a device).
   */
  async special(path: string, flag: '3' | '4' | '6', mode: number, mtime: number): Promise<void> {
    const name = encodeName(path);
    const split = splitUstar(name);
    if (!split) await this.writePax([paxRecord('path', name)], name);
    await this.write(encodeHeader({ name: split ? split.name : name.subarray(-100), prefix: split ? split.prefix : EMPTY, flag, mode, size: 0, mtime: Math.floor(mtime / 1000), link: EMPTY, uid: 0, gid: 0 }));
  }

  private async writePax(records: Buffer[], name: Buffer): Promise<void> {
    const body = Buffer.concat(records);
    const paxName = Buffer.from(`PaxHeader/${name.subarray(-80).toString('latin1').replace(/[^\x20-\x7e]/g, '_')}`, 'latin1');
    await this.write(encodeHeader({ name: paxName, prefix: EMPTY, flag: 'x', mode: 0o644, size: body.length, mtime: 0, link: EMPTY, uid: 0, gid: 0 }));
    await this.write(body);
    await this.pad(body.length);
  }

  /** Pads a file's content to the 512-byte block boundary. */
  async pad(size: number): Promise<void> {
    const rest = size % 512;
    if (rest) await this.write(ZERO.subarray(0, 512 - rest));
  }

  /** A whole file entry whose content is in memory. */
  async file(h: Omit<TarEntryHeader, 'type' | 'size'>, content: Buffer): Promise<void> {
    await this.header({ ...h, type: 'File', size: content.length });
    if (content.length) await this.write(content);
    await this.pad(content.length);
  }

  /** Writes the end-of-archive blocks and flushes (does not end `out`). */
  async end(): Promise<void> {
    await this.write(ZERO);
    await this.flush();
  }
}

const EMPTY = Buffer.alloc(0);

/** A header's encoded name and link, its size (files only) and mtime in seconds. */
function headerFields(h: TarEntryHeader): { name: Buffer; link: Buffer; size: number; mtime: number } {
  const path = h.type === 'Directory' && !h.path.endsWith('/') ? `${h.path}/` : h.path;
  return { name: encodeName(path), link: encodeName(h.linkpath ?? ''), size: h.type === 'File' ? (h.size ?? 0) : 0, mtime: Math.floor(h.mtime / 1000) };
}
/** Largest size an 11-digit octal field holds (8 GiB − 1); larger files get a pax `size` record. */
const MAX_OCTAL_SIZE = 0o77777777777;
const FLAGS: Record<TarEntryHeader['type'], string> = { File: '0', Directory: '5', SymbolicLink: '2', Link: '1' };

/** A pax record `<len> <key>=<value>\n`, where `<len>` counts the whole record including its own digits. */
function paxRecord(key: string, value: Buffer): Buffer {
  const rest = Buffer.byteLength(key) + value.length + 3; // space, '=', newline
  let len = rest + String(rest).length;
  if (String(len).length !== String(rest).length) len = rest + String(len).length;
  return Buffer.concat([Buffer.from(`${len} ${key}=`), value, Buffer.from('\n')]);
}

/** The ustar name/prefix split of a path (prefix ≤ 155 bytes, name ≤ 100, split at a `/`), or null. */
function splitUstar(path: Buffer): { name: Buffer; prefix: Buffer } | null {
  if (path.length <= 100) return { name: path, prefix: EMPTY };
  if (path.length > 256) return null;
  // The last `/` that leaves a name of at most 100 bytes (a directory's trailing `/` cannot be the split).
  for (let i = path.length - 2; i >= 0; i--) {
    if (path[i] !== 0x2f) continue;
    if (path.length - i - 1 > 100) return null;
    if (i <= 155) return { name: path.subarray(i + 1), prefix: path.subarray(0, i) };
  }
  return null;
}

function octal(block: Buffer, off: number, len: number, value: number): void {
  block.write(`${value.toString(8).padStart(len - 1, '0')}\0`, off, len, 'latin1');
}

/** One 512-byte ustar header block with its checksum. */
function encodeHeader(f: { name: Buffer; prefix: Buffer; flag: string; mode: number; size: number; mtime: number; link: Buffer; uid: number; gid: number }): Buffer {
  const block = Buffer.alloc(512);
  f.name.copy(block, 0, 0, 100);
  octal(block, 100, 8, f.mode & 0o7777);
  octal(block, 108, 8, f.uid);
  octal(block, 116, 8, f.gid);
  octal(block, 124, 12, f.size);
  octal(block, 136, 12, Math.max(0, Math.min(f.mtime, 0o77777777777)));
  block.write(f.flag, 156, 1, 'latin1');
  f.link.copy(block, 157, 0, 100);
  block.write('ustar\x0000', 257, 8, 'latin1');
  f.prefix.copy(block, 345, 0, 155);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += block[i]!;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return block;
}
