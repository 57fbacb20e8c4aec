/**
 * Names POSIX allows and other systems treat as special: backslashes (systemd unit names escape with them),
 * a leading drive letter, dots that are not `.`/`..`, control characters, shell and glob characters, bytes that
 * are not UTF-8 next to a backslash, and a path that is short in bytes but long once its non-UTF-8 bytes are
 * counted as U+FFFD. Written from POSIX's rule (a name is bytes; only `/` separates, only NUL ends), no copies.
 */
import { mkdirSync, writeFileSync } from 'node:fs';

/** Relative paths (bytes, `/`-separated) of files that hold their own path as content. */
export function oddNames(): Buffer[] {
  const s = (x: string): Buffer => Buffer.from(x);
  const escapedDeep = Array.from({ length: 14 }, (_, i) => Buffer.concat([s(`${i}`), Buffer.alloc(200, 0xfe)]));
  return [
    s('back\\slash.txt'),
    s('dev-disk-by\\x2dlabel-root.device'),
    s('\\leading'),
    s('trailing\\'),
    s('..\\..\\evil'),
    s('sub\\dir/inner\\name.txt'),
    s('C:evil'),
    s('C:/Windows/evil.txt'),
    s('...'),
    s('..hidden'),
    s('dots..'),
    s(' spaced name '),
    s('-n'),
    s('*?[glob]{a,b}'),
    s('new\nline'),
    s('tab\there'),
    s('quote"\'`$(x)'),
    s('%2e%2e'),
    Buffer.concat([s('bs\\'), Buffer.from([0xfe]), s('\\x2d')]),
    Buffer.concat([s('nested/'), Buffer.alloc(255, 0x5c)]),
    Buffer.concat([...escapedDeep.flatMap((d) => [d, s('/')]), s('end.txt')]),
  ];
}

/** Writes every `oddNames()` file under `root` (parents made), each holding its path's hex as content. */
export function writeOddNames(root: string): Buffer[] {
  const names = oddNames();
  for (const n of names) {
    const abs = Buffer.concat([Buffer.from(`${root}/`), n]);
    const slash = abs.lastIndexOf(0x2f);
    mkdirSync(abs.subarray(0, slash), { recursive: true });
    writeFileSync(abs, n.toString('hex'));
  }
  return names;
}
