/**
 * File names as bytes. POSIX names are byte strings; Node decodes them as UTF-8 and replaces what is not valid
 * UTF-8 with U+FFFD, so two names that differ only in an invalid byte would merge. mnemara keeps them apart the
 * way Python's `surrogateescape` does: each byte that is not part of valid UTF-8 becomes the lone surrogate
 * U+DC80+(byte−0x80) in the JS string, and turns back into that byte when the name reaches the filesystem or a
 * tar header. A valid UTF-8 name is an ordinary string (no cost on the common path).
 */

const ESCAPED = /[\uDC80-\uDCFF]/u;

/** Decodes name bytes (from `readdir(…, 'buffer')`, `readlink`, a tar header) to a string, escaping invalid bytes. */
export function decodeName(bytes: Uint8Array): string {
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) { ascii = false; break; }
  if (ascii) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let cp = n === 1 ? b : n === 2 ? b & 0x1f : n === 3 ? b & 0x0f : b & 0x07;
    let ok = n > 0 && i + n <= bytes.length;
    for (let k = 1; ok && k < n; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not valid UTF-8 either.
    if (ok && ((n === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff)))) ok = false;
    if (!ok) {
      out += String.fromCharCode(0xdc00 + b);
      i += 1;
      continue;
    }
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

/** True when `name` holds escaped bytes (it is not valid UTF-8 on disk). */
export function hasEscapedBytes(name: string): boolean {
  return ESCAPED.test(name);
}

/** The bytes of a name decoded by `decodeName` (escaped bytes back to themselves, the rest UTF-8). */
export function encodeName(name: string): Buffer {
  if (!hasEscapedBytes(name)) return Buffer.from(name, 'utf8');
  const parts: number[] = [];
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xdc80 && cp <= 0xdcff) parts.push(cp - 0xdc00);
    else for (const b of Buffer.from(ch, 'utf8')) parts.push(b);
  }
  return Buffer.from(parts);
}

/** What to hand `node:fs` for a path that may hold escaped bytes: the string itself, or its bytes. */
export function fsPath(path: string): string | Buffer {
  return hasEscapedBytes(path) ? encodeName(path) : path;
}

/** Bytes of a name as it is on disk (what limits on path length count). */
export function nameBytes(name: string): number {
  return hasEscapedBytes(name) ? encodeName(name).length : Buffer.byteLength(name);
}

/** A name for messages: escaped bytes shown as `\xNN`, the rest as is. */
export function displayName(name: string): string {
  return hasEscapedBytes(name) ? name.replace(/[\uDC80-\uDCFF]/gu, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16)}`) : name;
}

const C_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };
/** Characters that make a name quoted: controls (C0, DEL, C1), `"`, `\`, escaped bytes. */
const NEEDS_QUOTES = /[\u0000-\u001f\u007f-\u009f"\\\uDC80-\uDCFF]|^\s|\s$/u;

/**
 * A name as git quotes one in its patches and listings (with `core.quotePath` off, so that UTF-8 stays readable):
 * as it is when it needs nothing, else in double quotes with C escapes, `\\`, `\"`, `\t`, `\n` …, and every other
 * control byte and every byte that is not UTF-8 as a three-digit octal escape (`"lit\377\376.txt"`). Unambiguous
 * (new-user trial 28 F11: `\xNN` showed the bytes 0xff 0xfe and a name holding a real `\xff` alike): a name with a
 * backslash is always quoted, and a quoted name reads back as the exact bytes, as git's do. A name with a space
 * at an end is quoted too, so the space shows. Pure.
 */
export function quoteName(name: string): string {
  if (!NEEDS_QUOTES.test(name)) return name;
  let out = '"';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (C_ESCAPES[cp] !== undefined) out += C_ESCAPES[cp];
    else if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp <= 0x9f) || (cp >= 0xdc80 && cp <= 0xdcff)) {
      for (const b of encodeName(ch)) out += `\\${b.toString(8).padStart(3, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}
