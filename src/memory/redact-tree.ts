import { chmod, copyFile, lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import { writeFileAtomic } from './atomic.js';
import { redact } from './redact.js';
import { redactFile as redactFileText } from './redact-document.js';
import { encodedFileVerdict, redactUtf16 } from './redact-encoded-files.js';

const log = logger('memory.redact');

/** Text files up to this size (bytes) are redacted in place, as the session does in the sandbox (`session/redact-notes.ts`). */
const MAX_REDACT_BYTES = 64 * 1024 * 1024;

/**
 * What {@link redactLayoutTree} did. Paths are relative to the directory given, `/`-separated, and are the paths
 * AFTER renaming: a secret in a name is never reported (nor logged), only where the file is now.
 */
export interface TreeRedaction {
  /** Files whose text held secrets, with how many were replaced (markers added). */
  redacted: Array<{ path: string; secrets: number }>;
  /** Files and folders whose name held a secret, by their new name (the secret replaced by `[REDACTED:<kind>]`). */
  renamed: string[];
  /**
   * Binary files, or files over 64 MiB, whose text held a secret shape: they cannot be redacted in place, so they
   * are left out of the snapshot: moved to `setAside` (then in `setAsideAt`), or removed when no place was given.
   */
  refused: string[];
  /** Where the refused files now are (`setAside`, the same relative paths under it), when they were moved there. */
  setAsideAt?: string;
}

/** Whether a redaction changed anything. */
export const treeRedactionIsEmpty = (r: TreeRedaction): boolean => !r.redacted.length && !r.renamed.length && !r.refused.length;

/** Markers in `text`: what redaction added is the difference between before and after. */
const markers = (text: string): number => text.match(/\[REDACTED:[a-z_]+\]/g)?.length ?? 0;

/**
 * A name with every secret replaced (`ghp_….md` → `[REDACTED:github_token].md`), made unique among `taken`
 * (`…-2.md`, `…-3.md`): two files whose names held two different tokens must not overwrite each other.
 */
export function redactedName(name: string, taken: Set<string>): string {
  const clean = redact(name).replace(/[/\0]/g, '_');
  if (clean === name || !taken.has(clean)) return clean;
  const dot = clean.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [clean.slice(0, dot), clean.slice(dot)] : [clean, ''];
  for (let n = 2; ; n++) if (!taken.has(`${stem}-${n}${ext}`)) return `${stem}-${n}${ext}`;
}

/**
 * Redacts, in place on the host, every file under `folders` of `dir` (the memory layout: `memories/`,
 * `sessions/`) before a snapshot reads them, with the same rules as the session applies in the sandbox
 * (`redact` over each text file) so that no layer, head or tree index holds a secret a person or a tool wrote
 * into memory (DESIGN.md, "What must always hold"). Names too: a file or folder whose name holds a secret is
 * renamed to the redacted name. A binary file (a NUL byte) or one over 64 MiB that holds a secret shape is
 * left out: with `setAside` (a host directory, e.g. `<home>/left-out/snapshot-<time>`) it is moved there under its
 * relative path (directories 0700, the file 0600; a person's own file is never destroyed), else removed (only for
 * copies mnemara made itself). Symlinks are left alone (never followed); missing folders are fine. Writes are
 * atomic; a clean file is not rewritten. Throws what the filesystem throws for a write or rename that fails, and
 * `MnemaraError('IO_ERROR')` when a refused file cannot be moved to `setAside` (it is then left where it was).
 */
export async function redactLayoutTree(dir: string, folders: string[], setAside?: string): Promise<TreeRedaction> {
  const result: TreeRedaction = { redacted: [], renamed: [], refused: [], ...(setAside ? { setAsideAt: setAside } : {}) };
  const leaveOut = async (path: string, relPath: string): Promise<void> => {
    if (!setAside) return rm(path, { force: true });
    const target = join(setAside, relPath);
    try {
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      // `<home>/left-out` is mnemara's own folder of secrets; any other parent may be shared (a caller gave /tmp/x).
      if (basename(dirname(setAside)) === 'left-out') await chmod(dirname(setAside), 0o700).catch(() => undefined);
      await chmod(setAside, 0o700);
      // A rename keeps it on the same disk; across disks, copy first and remove the original only then.
      await rename(path, target).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EXDEV') throw err;
        await copyFile(path, target);
        await rm(path);
      });
      await chmod(target, 0o600);
    } catch (err) {
      throw new MnemaraError('IO_ERROR', `could not move ${relPath} (a binary or oversized file holding a secret) out of ${dir} to ${target}: ${(err as Error).message}`, {
        hint: `Move ${relPath} out of the memory layout yourself and snapshot again; the file was left where it was.`,
        cause: err,
      });
    }
  };
  const rel = (p: string): string => relative(dir, p).split(sep).join('/');
  const walk = async (folder: string): Promise<void> => {
    const names = await readdir(folder).catch(() => [] as string[]);
    const taken = new Set(names);
    for (const original of names) {
      let name = original;
      const clean = redactedName(original, taken);
      if (clean !== original) {
        await rename(join(folder, original), join(folder, clean));
        taken.delete(original);
        taken.add(clean);
        name = clean;
        result.renamed.push(rel(join(folder, clean)));
      }
      const path = join(folder, name);
      const st = await lstat(path).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) await walk(path);
      else if (st.isFile()) await redactFile(path, st.size, rel(path), result, leaveOut);
    }
  };
  for (const f of folders) {
    const top = join(dir, f);
    const st = await lstat(top).catch(() => null);
    if (st?.isDirectory()) await walk(top);
  }
  if (result.redacted.length || result.renamed.length) {
    log.info({ files: result.redacted.map((r) => r.path), renamed: result.renamed }, 'redacted secrets in the memory layout before the snapshot');
  }
  if (result.refused.length) log.warn({ files: result.refused, setAside }, 'left binary or oversized memory layout files that hold secrets out of the snapshot: they cannot be redacted in place');
  return result;
}

async function redactFile(path: string, size: number, relPath: string, result: TreeRedaction, leaveOut: (path: string, rel: string) => Promise<void>): Promise<void> {
  if (size > MAX_REDACT_BYTES) {
    if (await holdsSecret(path)) {
      await leaveOut(path, relPath);
      result.refused.push(relPath);
    }
    return;
  }
  const data = await readFile(path);
  if (data.includes(0)) {
    const utf16 = redactUtf16(relPath, data);
    if (utf16) {
      if (utf16 === data) return;
      await writeFileAtomic(path, utf16);
      result.redacted.push({ path: relPath, secrets: 1 });
      return;
    }
    // Compressed, an archive or other binary: looked into (`redact-encoded-files.ts`), never rewritten.
    if (encodedFileVerdict(data) !== 'clean') {
      await leaveOut(path, relPath);
      result.refused.push(relPath);
    }
    return;
  }
  const text = data.toString('utf8');
  // By its name too: in a config file (`db.ini`, `.npmrc`) a bare word under a secret-named key is a value.
  const clean = redactFileText(relPath, text);
  if (clean === text) return;
  await writeFileAtomic(path, clean);
  result.redacted.push({ path: relPath, secrets: Math.max(1, markers(clean) - markers(text)) });
}

/** Whether the first 64 MiB of a large file, read as Latin-1 text, hold anything `redact` would remove. */
async function holdsSecret(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(MAX_REDACT_BYTES);
    const { bytesRead } = await file.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('latin1');
    return redact(text) !== text;
  } finally {
    await file.close();
  }
}

/**
 * One line for a person: what was redacted, by count and file, never the values (`redacted 3 secret(s) in
 * memories/MEMORY.md, memories/notes.md; renamed 1 file whose name held a secret: …`). Empty when nothing was.
 */
export function describeTreeRedaction(r: TreeRedaction): string {
  const parts: string[] = [];
  const total = r.redacted.reduce((n, f) => n + f.secrets, 0);
  if (r.redacted.length) parts.push(`redacted ${total} secret(s) in ${r.redacted.map((f) => `${f.path} (${f.secrets})`).join(', ')}`);
  if (r.renamed.length) parts.push(`renamed ${r.renamed.length} file(s) whose name held a secret, now ${r.renamed.join(', ')}`);
  if (r.refused.length && r.setAsideAt) {
    parts.push(`left out ${r.refused.length} binary or oversized file(s) holding a secret (they cannot be redacted): ${r.refused.join(', ')}, moved to ${r.setAsideAt} (yours, never snapshotted)`);
  } else if (r.refused.length) parts.push(`removed ${r.refused.length} binary or oversized file(s) holding a secret: ${r.refused.join(', ')}`);
  return parts.length ? `${parts.join('; ')} (before the snapshot)` : '';
}
