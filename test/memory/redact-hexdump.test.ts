import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): a token's hex stayed whole when the dump cut it over lines (`xxd -p` writes
 * 60 digits a line) or wrote it as byte groups beside an offset (`xxd`, `hexdump -C`, `od -An -tx1`). Fake values.
 */
const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const bytes = (s: string): string[] => [...Buffer.from(s)].map((b) => b.toString(16).padStart(2, '0'));
const chunks = <T>(a: T[], n: number): T[][] => Array.from({ length: Math.ceil(a.length / n) }, (_, i) => a.slice(i * n, i * n + n));
const off = (i: number): string => (i * 16).toString(16).padStart(8, '0');
const printable = (row: string[]): string => row.map((h) => String.fromCharCode(parseInt(h, 16))).map((c) => (c >= ' ' && c <= '~' ? c : '.')).join('');

/** `xxd -p`: 30 bytes a line. */
const xxdPlain = (s: string): string => chunks(bytes(s), 30).map((r) => r.join('')).join('\n') + '\n';
/** `xxd`: offset, groups of two bytes, text column. */
const xxd = (s: string): string =>
  chunks(bytes(s), 16).map((r, i) => `${off(i)}: ${chunks(r, 2).map((g) => g.join('')).join(' ').padEnd(39)}  ${printable(r)}`).join('\n') + '\n';
/** `hexdump -C`: offset, bytes in two halves, text column in bars. */
const hexdumpC = (s: string): string =>
  chunks(bytes(s), 16).map((r, i) => `${off(i)}  ${`${r.slice(0, 8).join(' ')}  ${r.slice(8).join(' ')}`.padEnd(48)}  |${printable(r)}|`).join('\n') + `\n${Buffer.from(s).length.toString(16).padStart(8, '0')}\n`;
/** `od -An -tx1`. */
const od = (s: string): string => chunks(bytes(s), 16).map((r) => ` ${r.join(' ')}`).join('\n') + '\n';

describe('a token in a hex dump over lines is redacted', () => {
  it.each([
    ['xxd -p', `$ echo -n … | xxd -p\n${xxdPlain(TOKEN)}$ ls`],
    ['xxd -p, upper case', xxdPlain(TOKEN).toUpperCase()],
    ['xxd', xxd(TOKEN)],
    ['hexdump -C', hexdumpC(TOKEN)],
    ['od -An -tx1', od(TOKEN)],
    ['xxd -p of a line of text holding the token', xxdPlain(`export GH=${TOKEN} # ci\n`)],
  ])('%s', (_, text) => {
    const out = redact(text);
    expect(out).toContain('[REDACTED:');
    const hexLeft = out.replace(/[^0-9a-fA-F]/g, '').toLowerCase();
    expect(hexLeft).not.toContain(bytes(TOKEN.slice(4, 16)).join(''));
    expect(out).not.toContain(TOKEN.slice(4, 16));
  });
});

describe('ordinary hex stays', () => {
  it.each([
    ['git log --format=%H', 'b3f1c2d4e5a697887766554433221100ffeeddcc\n0123456789abcdef0123456789abcdef01234567\n'],
    ['sha256sum', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt\n9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  test.txt\n'],
    ['UUIDs', '550e8400-e29b-41d4-a716-446655440000\nF47AC10B-58CC-4372-A567-0E02B2C3D479\n'],
    ['colour codes', '#ff00aa #00FF00\ncolor: #336699;\n'],
    ['memory addresses', '0x7ffd5e8c3a10 0x00005555555546a0\nSegfault at 00007f3b2c1d0000\n'],
    ['xxd of an ELF header', xxd('\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00\x01\x00\x00\x00\x10\x6b\x00\x00')],
    ['hexdump -C of plain text', hexdumpC('hello world, this is a plain README line\n')],
    ['xxd -p of random bytes', '8f3ac91e02b7d45566e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4\nd5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2\n'],
  ])('%s', (_, text) => {
    expect(redact(text)).toBe(text);
  });
});
