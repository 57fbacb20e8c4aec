import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import { logger } from '../config/logger.js';
import type { MemoryLayout } from '../config/memory.js';
import { redact } from '../memory/redact.js';
import { redactFile } from '../memory/redact-document.js';
import { redactedName } from '../memory/redact-tree.js';
import { encodedFileVerdict, redactUtf16 } from '../memory/redact-encoded-files.js';
import type { Sandbox } from '../sandbox/types.js';
import type { ScanSection, SectionOutput } from './workspace-scan.js';

const log = logger('session');

/** Text files up to this size (bytes) are redacted in place; larger or binary ones that hold a secret are removed. */
const MAX_REDACT_BYTES = 64 * 1024 * 1024;

/** What `redactLayoutInSandbox` did, paths relative to the workspace. */
export interface NotesRedaction {
  redacted: string[];
  /** Binary files, or files over 64 MiB, that held something secret-shaped: removed from the sandbox. */
  refused: string[];
  /** Files and folders whose name held a secret, by their new path (the secret in the name replaced). */
  renamed: string[];
}

/**
 * Redacts, inside the sandbox, every file under the memory layout's folders (`memories/`, `sessions/`) before the
 * workspace snapshot reads them, so that no layer of any snapshot holds a secret the agent wrote into its notes
 * (DESIGN.md, "What must always hold"). One `getArchive` per folder reads them all; only files that change are
 * written back. A binary file (a NUL byte) or one over 64 MiB cannot be redacted in place: when its text holds
 * a secret shape it is removed, with a warning naming it. Missing folders are fine. Throws what the sandbox
 * throws for a read or write that fails (the session then reports a failed workspace snapshot).
 *
 * `since` (sandbox clock, seconds, as `date +%s.%N`): the tree was restored from a snapshot, whose memory layout
 * was redacted when it was written, so only the files changed after it (ctime, which the agent cannot set back)
 * are read; every name is still listed, so a rename never takes an unchanged sibling's name. Without it, or
 * when the sandbox cannot stream bytes, every file is read: `sessions/` holds every earlier rollout's transcript,
 * so that cost grew with the lineage's history, not with the run.
 */
export async function redactLayoutInSandbox(
  sandbox: Sandbox,
  layout: MemoryLayout,
  options: { since?: number; scanned?: (dir: string) => SectionOutput | undefined } = {},
): Promise<NotesRedaction> {
  const result: NotesRedaction = { redacted: [], refused: [], renamed: [] };
  const dirs = [layout.memoriesDir, layout.sessionsDir];
  // Both folders' reads at once (two execs in parallel, not one after the other), or the shared scan's
  // (`workspace-scan.ts`, `changedFilesSection`) when it read them.
  const since = options.since;
  const changedOf = await Promise.all(
    dirs.map((dir) => {
      if (since === undefined) return Promise.resolve(undefined);
      const scanned = options.scanned?.(dir);
      return scanned ? parseChanged(scanned) : changedFiles(sandbox, dir, since);
    }),
  );
  for (const [i, dir] of dirs.entries()) {
    const changed = changedOf[i];
    if (changed === 'missing') continue;
    let entries: string[] = [];
    let files: Map<string, Buffer>;
    if (changed) {
      entries = changed.names;
      files = changed.files;
    } else {
      const exists = await sandbox.exec(['test', '-d', dir]);
      if (exists.exitCode !== 0) continue;
      files = await readTextFiles(await sandbox.getArchive(dir), entries);
    }
    for (const [name, data] of files) {
      const path = posix.join(dir, name);
      const text = data.toString('latin1');
      const utf16 = data.includes(0) && data.length <= MAX_REDACT_BYTES ? redactUtf16(name, data) : null;
      if (utf16) {
        if (utf16 !== data) {
          await sandbox.writeFile(path, utf16);
          result.redacted.push(path);
        }
        continue;
      }
      const binary = data.includes(0) || data.length > MAX_REDACT_BYTES;
      if (binary) {
        // A compressed file or archive is looked into (`redact-encoded-files.ts`); one cut at the cap by its text only.
        if (data.length <= MAX_REDACT_BYTES ? encodedFileVerdict(data) !== 'clean' : redact(text) !== text) {
          await sandbox.exec(['rm', '-f', '--', path]);
          result.refused.push(path);
        }
        continue;
      }
      const utf8 = data.toString('utf8');
      const clean = redactFile(name, utf8);
      if (clean !== utf8) {
        await sandbox.writeFile(path, clean);
        result.redacted.push(path);
      }
    }
    await renameSecretNames(sandbox, dir, entries, result.renamed);
  }
  if (result.redacted.length) log.info({ files: result.redacted }, 'redacted secrets in the memory layout before the workspace snapshot');
  if (result.refused.length) {
    log.warn({ files: result.refused }, 'removed binary or oversized files under the memory layout that hold secrets: they cannot be redacted in place');
  }
  return result;
}

/** Largest output of one changed-files read (bytes): past it, the whole folder is read as before. */
const MAX_CHANGED_BYTES = 256 * 1024 * 1024;

/** The script of `changedFiles` (arguments: the folder, the time). */
const CHANGED_SCRIPT = 'cd -- "$1" 2>/dev/null || exit 3; find . -xdev -print0 || exit 4; printf "\\0"; find . -xdev -type f -newerct "@$2" -print0 | tar --null --no-recursion -T - -cf - || exit 5';

/** `changedFiles`'s read of `dir` as a section of the shared scan (`workspace-scan.ts`); its output goes to `parseChanged`. */
export function changedFilesSection(name: string, dir: string, since: number): ScanSection {
  return { name, script: CHANGED_SCRIPT, args: [dir, since.toFixed(9)], maxBytes: MAX_CHANGED_BYTES, stream: true };
}

/**
 * Every entry name under `dir` and the regular files changed after `since` (ctime), in one exec: the names,
 * NUL-separated, an empty name, then a tar of those files. `'missing'`: no such folder; `undefined`: not known
 * (no byte stream, a failed or truncated read) — the caller reads the whole folder.
 */
async function changedFiles(sandbox: Sandbox, dir: string, since: number): Promise<{ names: string[]; files: Map<string, Buffer> } | 'missing' | undefined> {
  if (!sandbox.execBytes) return undefined;
  const r = await sandbox.execBytes(['sh', '-c', CHANGED_SCRIPT, 'sh', dir, since.toFixed(9)], { maxOutputBytes: MAX_CHANGED_BYTES }).catch(() => null);
  return parseChanged(r);
}

/** What `changedFiles` makes of its exec's result (its own, or its section of the shared scan). */
async function parseChanged(
  r: { exitCode: number | null; stdout: Buffer; truncated?: boolean; timedOut?: boolean } | null,
): Promise<{ names: string[]; files: Map<string, Buffer> } | 'missing' | undefined> {
  if (r?.exitCode === 3) return 'missing';
  if (!r || r.exitCode !== 0 || r.truncated || r.timedOut) return undefined;
  const cut = r.stdout.indexOf('\0\0');
  if (cut < 0) return undefined;
  const names = r.stdout.subarray(0, cut).toString('utf8').split('\0').map((p) => p.replace(/^\.\//, '')).filter((p) => p !== '.');
  const files = await readTextFiles(Readable.from([r.stdout.subarray(cut + 2)]), []);
  return { names, files };
}

/**
 * Regular files of a tar stream, by entry path (`./` stripped), every entry's path pushed to `entries`; a file over
 * 64 MiB keeps only its first bytes and a NUL (so that it reads as not redactable in place). Rejects on a bad stream.
 */
export async function readTextFiles(tar: NodeJS.ReadableStream, entries: string[]): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const parser = new Parser({
    onReadEntry: (entry: ReadEntry) => {
      entries.push(entry.path.replace(/^\.\//, '').replace(/\/$/, ''));
      if (entry.type !== 'File') {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      entry.on('data', (c: Buffer) => {
        if (size <= MAX_REDACT_BYTES) chunks.push(c);
        size += c.length;
      });
      entry.on('end', () => {
        const name = entry.path.replace(/^\.\//, '');
        // Over the cap: mark it with a NUL so that it is treated as not redactable in place.
        files.set(name, size > MAX_REDACT_BYTES ? Buffer.concat([...chunks, Buffer.from([0])]) : Buffer.concat(chunks));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    tar.on('error', reject);
    parser.on('error', reject);
    parser.on('end', resolve);
    tar.pipe(parser);
  });
  return files;
}

/**
 * Renames, inside the sandbox, every entry under `dir` whose name holds a secret (`memories/ghp_….md`): a name is
 * stored in every later layer and in the tree index, so it is redacted like text. Deepest first, so that a
 * folder's own rename does not move the paths of what is inside it before they are renamed.
 */
async function renameSecretNames(sandbox: Sandbox, dir: string, entries: string[], renamed: string[]): Promise<void> {
  const paths = [...new Set(entries.filter((e) => e !== '' && e !== '.'))];
  const secret = paths.filter((p) => redact(posix.basename(p)) !== posix.basename(p));
  if (!secret.length) return;
  const siblings = (parent: string): Set<string> => new Set(paths.filter((p) => posix.dirname(p) === parent).map((p) => posix.basename(p)));
  for (const p of secret.sort((a, b) => b.split('/').length - a.split('/').length)) {
    const parent = posix.dirname(p);
    const taken = siblings(parent);
    const clean = redactedName(posix.basename(p), taken);
    const target = parent === '.' ? clean : posix.join(parent, clean);
    const r = await sandbox.exec(['mv', '-T', '--', posix.join(dir, p), posix.join(dir, target)]);
    if (r.exitCode !== 0) throw new Error(`could not rename a memory layout file whose name holds a secret (in ${dir}): exit ${r.exitCode}`);
    paths.push(target);
    // Reported with every segment redacted: a folder renamed after its contents is not stale here.
    renamed.push(posix.join(dir, target.split('/').map((seg) => redact(seg)).join('/')));
  }
}
