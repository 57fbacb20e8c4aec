/**
 * Archives the run wrote that hold a token (`tar czf backup.tgz .env`, `gzip -k creds.json`, a zip made with
 * Python): the file-token scan's grep (`secret-files.ts`) skips binary files, and compression hides every prefix,
 * so a credential packed into an archive would reach the workspace snapshot whole. One python3 in the sandbox
 * opens each archive the run changed (zip, tar with any compression Python reads, or a single gzip/bzip2/xz
 * stream), reads the first `SCAN_BYTES` of each member and greps them with the scan's own patterns; the host then
 * checks each match as it checks grep's. Without python3 in the image, archives are not read.
 *
 * Hostile archives are bounded: at most `MEMBERS` members and `BUDGET_BYTES` decompressed bytes per archive (a
 * decompression bomb reads no further), archives over `MAX_ARCHIVE_BYTES` are not opened, nested archives are
 * not opened, and an archive Python cannot read is skipped.
 */

/** Archive names the scan opens (find -name patterns; matched case-sensitively, as `tar` names them). */
export const ARCHIVE_NAMES = ['*.zip', '*.tar', '*.tgz', '*.tar.gz', '*.tbz2', '*.tar.bz2', '*.txz', '*.tar.xz', '*.gz', '*.bz2', '*.xz'];
/** Archives larger than this are not opened. Bytes. */
export const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;
/** Decompressed bytes read from one archive at most. Bytes. */
export const BUDGET_BYTES = 64 * 1024 * 1024;
/** Members of one archive read at most. */
export const MEMBERS = 10_000;

/**
 * Reads NUL-separated archive paths on stdin; argv: bytes per member, then the EREs (Python's `re` takes the scan's
 * patterns as they are). Prints `path NUL match` per match, as the scan's greps do.
 */
export const ARCHIVES_PY = [
  'import os, re, sys, tarfile, zipfile, gzip, bz2, lzma',
  'n = int(sys.argv[1]); rx = re.compile(b"|".join(a.encode() for a in sys.argv[2:]), re.M)',
  `budget = ${BUDGET_BYTES}; members = ${MEMBERS}`,
  'def scan(p, d):',
  '    for m in rx.finditer(d): sys.stdout.buffer.write(p + b"\\0" + m.group(0).strip(b"\\n") + b"\\n")',
  'def read(f, left): return f.read(max(0, min(n, left)))',
  'for p in sys.stdin.buffer.read().split(b"\\0"):',
  '    if not p: continue',
  '    left = budget; f = os.fsdecode(p)',
  '    try:',
  '        if zipfile.is_zipfile(f):',
  '            with zipfile.ZipFile(f) as z:',
  '                for i in z.infolist()[:members]:',
  '                    if left <= 0: break',
  '                    if i.is_dir(): continue',
  '                    with z.open(i) as m: d = read(m, left)',
  '                    left -= len(d); scan(p, d)',
  '        elif tarfile.is_tarfile(f):',
  '            with tarfile.open(f) as t:',
  '                for k, i in enumerate(t):',
  '                    if k >= members or left <= 0: break',
  '                    if not i.isfile(): continue',
  '                    d = read(t.extractfile(i), left); left -= len(d); scan(p, d)',
  '        else:',
  '            o = gzip.open if f.endswith(".gz") else bz2.open if f.endswith(".bz2") else lzma.open',
  '            with o(f) as m: scan(p, read(m, left))',
  '    except Exception: continue',
].join('\n');

/** `text` as one single-quoted sh word (for `sh -c` scripts built here and in `secret-files.ts`). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A `find` clause for the scan's one walk: an archive by name and size is also printed (NUL-separated) to `list`;
 * always true, so the walk's own sorting goes on.
 */
export function archiveFindClause(list: string): string {
  const names = ARCHIVE_NAMES.map((n) => `-name '${n}'`).join(' -o ');
  return `\\( \\( ${names} \\) -size -${MAX_ARCHIVE_BYTES + 1}c -fprint0 "${list}" -o -true \\)`;
}

/** The script line that reads the archives listed in `list` (`$3` bytes per member, `$4` `$5` the EREs). */
export function archiveScanLine(list: string): string {
  return `[ -s "${list}" ] && python3 -c ${shellQuote(ARCHIVES_PY)} "$3" "$4" "$5" < "${list}" 2>/dev/null`;
}
