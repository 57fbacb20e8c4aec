import { gunzipSync, inflateRawSync } from 'node:zlib';
import { redact } from './redact.js';
import { redactFile } from './redact-document.js';

/**
 * Files under the memory layout that are not UTF-8 text. A notes file saved as UTF-16, a `.gz` of a log or a
 * `.zip`/`.tar` of notes kept every token in it (issue 10 trial): the checks read their raw bytes as Latin-1,
 * where UTF-16 puts a NUL between letters and deflate hides them. UTF-16 is text: it is decoded, redacted and
 * written back in its own encoding. Compressed files and archives are looked into, bounded; one that holds a
 * secret, and one that cannot be read to the end (truncated, encrypted, a bomb past the bounds), cannot be
 * redacted in place, so the caller leaves it out with a warning.
 */

/** Bytes decompressed from one file, all members and entries together, before it counts as unreadable. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
/** Archive entries looked at in one file (a zip can list millions of empty entries). */
const MAX_ENTRIES = 10_000;
/** Nesting of compressed files and archives looked into (a `.tar.gz` of a `.zip` is 3). */
const MAX_DEPTH = 4;

/** A UTF-16 text: its encoding and whether it began with a byte order mark. */
interface Utf16 {
  littleEndian: boolean;
  bom: boolean;
}

/**
 * Whether `data` is UTF-16 text: a byte order mark (FF FE, FE FF), or an even length where at least 90 % of the
 * high bytes of the first 4 KiB are NUL and none of the low ones (Latin text without a mark). Null otherwise.
 */
export function utf16Of(data: Buffer): Utf16 | null {
  if (data.length >= 2 && data[0] === 0xff && data[1] === 0xfe) return { littleEndian: true, bom: true };
  if (data.length >= 2 && data[0] === 0xfe && data[1] === 0xff) return { littleEndian: false, bom: true };
  if (data.length < 8 || data.length % 2) return null;
  const n = Math.min(data.length, 4096) & ~1;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (data[i] === 0) evenNul += 1;
    if (data[i + 1] === 0) oddNul += 1;
  }
  const pairs = n / 2;
  if (oddNul >= pairs * 0.9 && evenNul === 0) return { littleEndian: true, bom: false };
  if (evenNul >= pairs * 0.9 && oddNul === 0) return { littleEndian: false, bom: false };
  return null;
}

const swap = (b: Buffer): Buffer => {
  const out = Buffer.from(b);
  out.swap16();
  return out;
};

/**
 * A UTF-16 file redacted as text (`redactFile`, by its `name`), re-encoded the way it came (endianness, mark).
 * Returns null when `data` is not UTF-16 (`utf16Of`), and `data` itself when nothing changed.
 */
export function redactUtf16(name: string, data: Buffer): Buffer | null {
  const form = utf16Of(data);
  if (!form) return null;
  const body = data.subarray(form.bom ? 2 : 0, data.length - ((data.length - (form.bom ? 2 : 0)) % 2));
  const text = (form.littleEndian ? body : swap(body)).toString('utf16le');
  const clean = redactFile(name, text);
  if (clean === text) return data;
  const le = Buffer.from(clean, 'utf16le');
  const encoded = form.littleEndian ? le : swap(le);
  return form.bom ? Buffer.concat([data.subarray(0, 2), encoded]) : encoded;
}

/** What a file that is not UTF-8 text holds, read through its encodings: `secret`, `clean` or `unreadable`. */
export type EncodedVerdict = 'clean' | 'secret' | 'unreadable';

class Unreadable extends Error {}

/** A budget shared by every member and entry of one file. */
interface Budget {
  bytes: number;
  entries: number;
}

const holdsSecretText = (text: string): boolean => redact(text) !== text;

/** Reads a stored or deflated zip (APPNOTE.TXT 4.3: end of central directory, central headers, local headers). */
function zipEntries(data: Buffer, budget: Budget): Buffer[] {
  const from = Math.max(0, data.length - 65_557);
  let end = -1;
  for (let i = data.length - 22; i >= from; i--) if (data.readUInt32LE(i) === 0x06054b50) { end = i; break; }
  if (end < 0) throw new Unreadable('no end of central directory');
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  const out: Buffer[] = [];
  for (let k = 0; k < count; k++) {
    if (++budget.entries > MAX_ENTRIES) throw new Unreadable('too many entries');
    if (at + 46 > data.length || data.readUInt32LE(at) !== 0x02014b50) throw new Unreadable('damaged central directory');
    const flags = data.readUInt16LE(at + 8);
    const method = data.readUInt16LE(at + 10);
    const packed = data.readUInt32LE(at + 20);
    const size = data.readUInt32LE(at + 24);
    const nameLen = data.readUInt16LE(at + 28);
    const local = data.readUInt32LE(at + 42);
    at += 46 + nameLen + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
    if (flags & 1) throw new Unreadable('encrypted entry');
    if (packed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) throw new Unreadable('zip64');
    if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50) throw new Unreadable('damaged local header');
    const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    if (start + packed > data.length) throw new Unreadable('truncated entry');
    const raw = data.subarray(start, start + packed);
    if (method === 0) out.push(raw);
    else if (method === 8) out.push(inflate(() => inflateRawSync(raw, { maxOutputLength: Math.max(1, budget.bytes) }), budget));
    else throw new Unreadable(`compression method ${method}`);
  }
  return out;
}

/** Runs a bounded decompression, charging its output to the budget; a bomb or damaged stream is unreadable. */
function inflate(run: () => Buffer, budget: Budget): Buffer {
  let out: Buffer;
  try {
    out = run();
  } catch (err) {
    throw new Unreadable((err as Error).message);
  }
  budget.bytes -= out.length;
  if (budget.bytes < 0) throw new Unreadable('inflates past the bound');
  return out;
}

/** The files of a ustar/GNU tar (512-byte headers, octal sizes), for nested encodings; names are not needed. */
function tarEntries(data: Buffer, budget: Budget): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at + 512 <= data.length; ) {
    const header = data.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    if (++budget.entries > MAX_ENTRIES) throw new Unreadable('too many entries');
    const size = parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/s, '').trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0 || at + 512 + size > data.length) throw new Unreadable('truncated tar');
    if (header[156] === 0x30 || header[156] === 0) out.push(data.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

const isGzip = (d: Buffer): boolean => d.length >= 2 && d[0] === 0x1f && d[1] === 0x8b;
const isZip = (d: Buffer): boolean => d.length >= 4 && d.readUInt32LE(0) === 0x04034b50;
const isTar = (d: Buffer): boolean => d.length >= 512 && d.subarray(257, 262).toString('latin1') === 'ustar';

function verdictOf(data: Buffer, budget: Budget, depth: number): 'clean' | 'secret' {
  const utf16 = utf16Of(data);
  if (utf16) return redactUtf16('', data) === data ? 'clean' : 'secret';
  if (holdsSecretText(data.toString('latin1'))) return 'secret';
  const inner = isGzip(data)
    ? [inflate(() => gunzipSync(data, { maxOutputLength: Math.max(1, budget.bytes) }), budget)]
    : isZip(data)
      ? zipEntries(data, budget)
      : isTar(data)
        ? tarEntries(data, budget)
        : null;
  if (!inner) return 'clean';
  if (depth >= MAX_DEPTH) throw new Unreadable('nested too deep');
  return inner.some((d) => verdictOf(d, budget, depth + 1) === 'secret') ? 'secret' : 'clean';
}

/**
 * Whether a file that is not UTF-8 text (a NUL byte) holds a secret, read as Latin-1 and through UTF-16, gzip,
 * zip (stored, deflated) and tar, nested up to 4 deep, inflating at most `MAX_INFLATED_BYTES` and 10,000 entries
 * in all. `unreadable`: an archive or compressed file that cannot be read to the end (truncated, encrypted, zip64,
 * another method, past the bounds): the caller treats it as one that may hold a secret. Never throws.
 */
export function encodedFileVerdict(data: Buffer): EncodedVerdict {
  try {
    return verdictOf(data, { bytes: MAX_INFLATED_BYTES, entries: 0 }, 0);
  } catch (err) {
    if (err instanceof Unreadable || err instanceof RangeError) return 'unreadable';
    throw err;
  }
}
