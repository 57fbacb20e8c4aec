import { lstat, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** The largest note (bytes, each side) merged line by line; past it a conflict keeps both files apart. */
export const UNION_MAX_BYTES = 1024 * 1024;

async function textOf(path: string | null): Promise<string | null> {
  if (path === null) return '';
  const st = await lstat(path).catch(() => undefined);
  if (!st) return '';
  if (!st.isFile() || st.size > UNION_MAX_BYTES) return null;
  const buf = await readFile(path);
  return buf.includes(0) ? null : buf.toString('utf8');
}

/**
 * Three-way line merge of one note both sides changed, keeping every line of both (`git merge-file --union`):
 * where the two sides changed the same lines, ours come first, then theirs. Memory notes are mostly lists that
 * runs append to, so three concurrent runs each adding a line keep all three (new-user trial 27 F2: two of six
 * appended lines reached the head, the rest sat in `.ours-` copies nobody reads). `base` null or missing = empty.
 * Returns the merged text, or null when it cannot be merged as text (a side is not a regular file, is over
 * `UNION_MAX_BYTES`, holds a NUL byte, or git is not there): the caller then keeps both files apart.
 * Never throws.
 */
export async function unionMerge(base: string | null, ours: string, theirs: string): Promise<string | null> {
  const [b, o, t] = await Promise.all([textOf(base), textOf(ours), textOf(theirs)]);
  if (b === null || o === null || t === null) return null;
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-union-')).catch(() => null);
  if (dir === null) return null;
  try {
    const [fo, fb, ft] = ['ours', 'base', 'theirs'].map((n) => join(dir, n)) as [string, string, string];
    await Promise.all([writeFile(fo, o), writeFile(fb, b), writeFile(ft, t)]);
    // Exit status = number of conflicts (0 with --union); over 127 or a signal is a failure.
    const r = await execa('git', ['merge-file', '--union', '-p', fo, fb, ft], { reject: false, encoding: 'utf8', stripFinalNewline: false });
    if (r.failed && (typeof r.exitCode !== 'number' || r.exitCode > 127 || r.exitCode < 0)) return null;
    return r.stdout;
  } catch {
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
