import type { Readable } from 'node:stream';
import { UnsafeArchiveError } from './errors.js';
import { decodeName } from './names.js';

/**
 * One entry of a tar stream as `readTar` hands it over. `type` uses node-tar's names for the POSIX types
 * (`File`, `OldFile`, `ContiguousFile`, `Link`, `SymbolicLink`, `CharacterDevice`, `BlockDevice`, `Directory`,
 * `FIFO`); anything else is named for what it is (`GNU sparse file`, `volume header`, `type "X"` …) so a
 * guard can refuse it by name. `path`/`linkpath` are decoded with `decodeName` (bytes that are not UTF-8 are
 * kept, escaped). `size` is content bytes; `mtime` from the header (pax sub-second precision kept).
 */
export interface TarEntry {
  path: string;
  type: string;
  size: number;
  mode: number | undefined;
  mtime: Date | undefined;
  linkpath: string | undefined;
  uid: number | undefined;
  gid: number | undefined;
  /**
   * The whole content, when the reader already held it (entries up to `INLINE_CONTENT_BYTES`): a handler can
   * take it at once instead of iterating. Iterating yields the same bytes.
   */
  data?: Buffer;
  /** Content not read by the handler is skipped; kept so handlers written for node-tar's entries still read. */
  resume(): void;
  [Symbol.asyncIterator](): AsyncIterator<Buffer>;
}

const TYPES: Record<string, string> = {
  '0': 'File',
  '\0': 'OldFile',
  '1': 'Link',
  '2': 'SymbolicLink',
  '3': 'CharacterDevice',
  '4': 'BlockDevice',
  '5': 'Directory',
  '6': 'FIFO',
  '7': 'ContiguousFile',
  S: 'GNU sparse file',
  V: 'volume header',
  M: 'multi-volume continuation',
  D: 'GNU dump directory',
  N: 'GNU old long name',
};

/**
 * Entries up to this many content bytes are read before their handler runs and handed over whole (`data`):
 * most files of a real tree are this small, and an async iteration per file cost more than its write. Reading
 * them before the handler declares them stays inside the inflation check's slack (1 MiB, restore-guard.ts).
 */
const INLINE_CONTENT_BYTES = 64 * 1024;

const ZERO_BLOCK = Buffer.alloc(512);

/** Largest pax or GNU long-name record accepted (the guard's path limit is 4 KiB; this leaves room). */
const MAX_META_BYTES = 1024 * 1024;

/** Pulls bytes from a stream in exact amounts without copying when one chunk holds them. */
class ByteSource {
  private chunks: Buffer[] = [];
  private length = 0;
  private readonly it: AsyncIterator<Buffer>;
  private ended = false;

  constructor(
    input: Readable,
    private readonly onConsumed?: (bytes: number) => void,
  ) {
    this.it = (input as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** Ensures `n` bytes are buffered; false at the end of input before that. */
  async fill(n: number): Promise<boolean> {
    while (this.length < n && !this.ended) {
      const r = await this.it.next();
      if (r.done) this.ended = true;
      else if (r.value.length) {
        this.chunks.push(r.value);
        this.length += r.value.length;
      }
    }
    return this.length >= n;
  }

  /** Takes up to `n` buffered bytes (at most one chunk's worth when `whole` is false). */
  take(n: number, whole = true): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n || !whole) {
      const k = Math.min(n, first.length);
      const out = first.subarray(0, k);
      if (k === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(k);
      this.length -= k;
      this.onConsumed?.(k);
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const part = this.take(n - got, false);
      part.copy(out, got);
      got += part.length;
    }
    return out;
  }

  /** Yields exactly `n` bytes as they arrive; throws a truncation error at end of input. */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (!(await this.fill(1))) throw truncated();
      const part = this.take(left, false);
      left -= part.length;
      yield part;
    }
  }

  async skip(n: number): Promise<void> {
    for await (const _ of this.stream(n)) void _;
  }

  /** Reads the rest of the input (so whatever hashes it sees every byte); true when all of it is zero. */
  async drain(): Promise<boolean> {
    let zero = true;
    for (;;) {
      for (const c of this.chunks) {
        if (zero && c.some((b) => b !== 0)) zero = false;
        this.onConsumed?.(c.length);
      }
      this.chunks = [];
      this.length = 0;
      if (this.ended) return zero;
      const r = await this.it.next();
      if (r.done) this.ended = true;
      else this.chunks.push(r.value);
    }
  }

  close(): void {
    void this.it.return?.();
  }
}

function truncated(): UnsafeArchiveError {
  return new UnsafeArchiveError('unreadable archive (truncated: the stream ends inside an entry)');
}

function bad(what: string): UnsafeArchiveError {
  return new UnsafeArchiveError(`unreadable archive (${what})`);
}

/** A NUL-terminated header field as bytes. */
function field(block: Buffer, off: number, len: number): Buffer {
  const f = block.subarray(off, off + len);
  const nul = f.indexOf(0);
  return nul === -1 ? f : f.subarray(0, nul);
}

/** A numeric header field: octal text, or GNU base-256 (high bit set) for large values. */
function numeric(block: Buffer, off: number, len: number, name: string): number | undefined {
  const f = block.subarray(off, off + len);
  if (f[0]! & 0x80) {
    if (f[0] === 0xff) throw bad(`negative ${name}`);
    let v = f[0]! & 0x7f;
    for (let i = 1; i < len; i++) v = v * 256 + f[i]!;
    if (!Number.isSafeInteger(v)) throw bad(`${name} too large`);
    return v;
  }
  // Fast path for the usual form (spaces, octal digits, spaces, then NUL or the field's end): no string per
  // field, seven fields a header. Anything else takes the exact path below (and its errors).
  let i = 0;
  while (i < len && f[i] === 0x20) i++;
  let v = 0;
  let digits = 0;
  for (; i < len && f[i]! >= 0x30 && f[i]! <= 0x37; i++, digits++) v = v * 8 + (f[i]! - 0x30);
  while (i < len && f[i] === 0x20) i++;
  if ((i === len || f[i] === 0) && digits <= 16) return digits === 0 ? undefined : v;
  const text = f.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return undefined;
  if (!/^[0-7]+$/.test(text)) throw bad(`bad ${name} field ${JSON.stringify(text)}`);
  return parseInt(text, 8);
}

function checksumOk(block: Buffer): boolean {
  const stored = numeric(block, 148, 8, 'checksum');
  let unsigned = 8 * 0x20;
  let signed = 8 * 0x20;
  for (let i = 0; i < 512; i++) {
    if (i >= 148 && i < 156) continue;
    unsigned += block[i]!;
    signed += (block[i]! << 24) >> 24;
  }
  return stored === unsigned || stored === signed;
}

/** Pax records (`<len> <key>=<value>\n`), values kept as bytes (a path may be any bytes). */
function paxRecords(data: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let pos = 0;
  while (pos < data.length) {
    if (data[pos] === 0) break;
    const sp = data.indexOf(0x20, pos);
    const len = sp === -1 ? NaN : Number(data.toString('latin1', pos, sp));
    if (!Number.isInteger(len) || len <= 0 || pos + len > data.length || data[pos + len - 1] !== 0x0a) throw bad('malformed pax record');
    const rec = data.subarray(sp + 1, pos + len - 1);
    const eq = rec.indexOf(0x3d);
    if (eq <= 0) throw bad('malformed pax record');
    out.set(rec.toString('utf8', 0, eq), rec.subarray(eq + 1));
    pos += len;
  }
  return out;
}

/**
 * Reads an uncompressed tar stream (ustar, pax and GNU long names, as GNU tar, Go's archive/tar and node-tar
 * write them) and calls `onEntry` for each entry in order, waiting for it before reading on; content the handler
 * does not read is skipped. Owned instead of node-tar's `Parser` because that one decodes names as UTF-8 (two
 * names that differ in a non-UTF-8 byte merge) and drops GNU sparse, volume-header and unknown entries without a
 * word; here they reach the handler by name, to be refused. Reads the input to its end (after the end-of-archive
 * blocks too) so a digest over it is complete. Rejects with `UnsafeArchiveError` on a bad checksum, a malformed
 * header or a truncated stream, or with the handler's or the input's error; the input is destroyed on rejection.
 * `onConsumed` gets every byte count the reader has consumed (headers, content, skipped content, the rest after
 * the end), in order: a budget counted here never runs ahead of the headers that declare the bytes, whatever size
 * the input's chunks have (node-tar hands over 16 MiB at once), and may throw to stop the read.
 */
export async function readTar(
  input: Readable,
  onEntry: (entry: TarEntry) => Promise<void>,
  onConsumed?: (bytes: number) => void,
): Promise<void> {
  const src = new ByteSource(input, onConsumed);
  try {
    let pax = new Map<string, Buffer>();
    const globals = new Map<string, Buffer>();
    let longName: Buffer | undefined;
    let longLink: Buffer | undefined;
    let entries = 0;
    for (;;) {
      if (!(await src.fill(512))) {
        // No end-of-archive blocks: an empty stream is an empty archive; anything else was cut short.
        if (entries === 0 && longName === undefined && pax.size === 0) return;
        throw truncated();
      }
      const block = src.take(512);
      if (block.equals(ZERO_BLOCK)) {
        await src.drain();
        return;
      }
      if (!checksumOk(block)) throw bad('bad header checksum');
      const flag = String.fromCharCode(block[156]!);
      const declared = numeric(block, 124, 12, 'size') ?? 0;
      if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
        if (declared > MAX_META_BYTES) throw bad(`a ${flag} record of ${declared} bytes`);
        if (!(await src.fill(declared))) throw truncated();
        const data = declared > 0 ? src.take(declared) : Buffer.alloc(0);
        await src.skip((512 - (declared % 512)) % 512);
        if (flag === 'x') pax = paxRecords(data);
        else if (flag === 'g') for (const [k, v] of paxRecords(data)) globals.set(k, v);
        else if (flag === 'L') longName = field(data, 0, data.length);
        else longLink = field(data, 0, data.length);
        continue;
      }
      const rec = (key: string): Buffer | undefined => pax.get(key) ?? globals.get(key);
      const ustar = block.toString('latin1', 257, 262) === 'ustar';
      const prefix = ustar ? field(block, 345, 155) : Buffer.alloc(0);
      const rawName = rec('path') ?? longName ?? (prefix.length ? Buffer.concat([prefix, Buffer.from('/'), field(block, 0, 100)]) : field(block, 0, 100));
      const rawLink = rec('linkpath') ?? longLink ?? field(block, 157, 100);
      const paxSize = rec('size');
      const size = paxSize ? Number(paxSize.toString('latin1')) : declared;
      if (!Number.isSafeInteger(size) || size < 0) throw bad('bad size');
      const paxMtime = rec('mtime');
      const mtimeS = paxMtime ? Number(paxMtime.toString('latin1')) : numeric(block, 136, 12, 'mtime');
      const num = (key: string, off: number): number | undefined => {
        const v = rec(key);
        return v ? Number(v.toString('latin1')) : numeric(block, off, 8, key);
      };
      let type = TYPES[flag] ?? `type ${JSON.stringify(flag)}`;
      if (rec('GNU.sparse.major') || rec('GNU.sparse.size') || rec('GNU.sparse.map')) type = 'GNU sparse file';
      // Types without content carry none even when the header says otherwise (old tars set size on links).
      const contentBytes = type === 'Directory' || type === 'SymbolicLink' || type === 'Link' || type === 'FIFO' || type === 'CharacterDevice' || type === 'BlockDevice' ? 0 : size;
      pax = new Map();
      longName = undefined;
      longLink = undefined;
      entries += 1;
      let left = contentBytes;
      // A small entry whose bytes are all there is taken whole (a stream cut inside it takes the streaming path,
      // which reports the truncation when the handler reads, as before).
      const data = contentBytes > 0 && contentBytes <= INLINE_CONTENT_BYTES && (await src.fill(contentBytes)) ? src.take(contentBytes) : undefined;
      if (data) left = 0;
      const body = data ? once(data) : src.stream(contentBytes);
      const entry: TarEntry = {
        path: decodeName(rawName),
        type,
        size: contentBytes,
        mode: numeric(block, 100, 8, 'mode'),
        mtime: mtimeS === undefined || !Number.isFinite(mtimeS) ? undefined : new Date(mtimeS * 1000),
        linkpath: rawLink.length ? decodeName(rawLink) : undefined,
        uid: num('uid', 108),
        gid: num('gid', 116),
        ...(data ? { data } : {}),
        resume: () => undefined,
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            const r = await body.next();
            if (!r.done && !data) left -= r.value.length;
            return r;
          },
          return: async () => ({ done: true, value: undefined }),
        }),
      };
      await onEntry(entry);
      await src.skip(left + ((512 - (contentBytes % 512)) % 512));
    }
  } catch (err) {
    input.destroy();
    throw err;
  } finally {
    src.close();
  }
}

/** The generator `stream` would be for content already taken. */
async function* once(data: Buffer): AsyncGenerator<Buffer> {
  yield data;
}

/** Reads an entry's whole content into memory (callers check `entry.size` against their cap first). */
export async function readEntryBuffer(entry: TarEntry): Promise<Buffer> {
  if (entry.data) return entry.data;
  const chunks: Buffer[] = [];
  for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
