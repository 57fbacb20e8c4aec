/**
 * Git's own plain-text files that repeat what the run typed into a commit: the message being edited
 * (`.git/COMMIT_EDITMSG`, `MERGE_MSG`, `SQUASH_MSG`, `TAG_EDITMSG`) and the reflogs (`.git/logs/HEAD`,
 * `.git/logs/refs/…`, one line per ref move ending in the commit's subject). A token in a commit message stayed in
 * them in the workspace snapshot (trial 24), though git needs none of their text to work: the objects are the
 * repository (kept whole, see `secret-files.ts`); these files are its notes. They are redacted in place like the
 * memory layout, so a reflog keeps its hashes, names and times and loses only the secret.
 */
import { Readable } from 'node:stream';
import { logger } from '../config/logger.js';
import { redact } from '../memory/redact.js';
import type { Sandbox } from '../sandbox/types.js';
import { readTextFiles } from './redact-notes.js';
import type { ScanSection, SectionOutput } from './workspace-scan.js';

const log = logger('session');

/** Each file is read up to this size (bytes); a reflog past it is a long-lived clone's, not this run's doing. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Largest read of all of them at once (bytes). */
const MAX_READ_BYTES = 32 * 1024 * 1024;

/** The script that prints the NUL-separated paths, under `.git/`, of the files to read (argument: the workspace). */
function listScript(since: number | null): string {
  const newer = since === null ? '' : `-newerct "@${since.toFixed(9)}"`;
  return [
    'cd -- "$1/.git" 2>/dev/null || exit 0',
    `{ find . -maxdepth 1 -type f \\( -name COMMIT_EDITMSG -o -name MERGE_MSG -o -name SQUASH_MSG -o -name TAG_EDITMSG \\) ${newer} -size -${MAX_FILE_BYTES + 1}c -print0;`,
    `  [ -d logs ] && find logs -xdev -type f ${newer} -size -${MAX_FILE_BYTES + 1}c -print0; }`,
  ].join('\n');
}

/** The one-stream read of `redactGitMessagesInSandbox` as a section of the shared scan (`workspace-scan.ts`). */
export function gitMessagesSection(name: string, workspaceDir: string, since: number | null): ScanSection {
  return { name, script: `${listScript(since)} | tar --null --no-recursion -T - -cf -`, args: [workspaceDir], maxBytes: MAX_READ_BYTES, stream: true };
}

/**
 * Redacts, inside the sandbox, the commit message files and reflogs of the workspace's own repository (`.git/` at
 * its root) that changed after `since` (sandbox clock, seconds; `null`: every one), in one read and one write per
 * changed file. Returns the paths redacted, workspace-relative. `scanned`: the read, done by the shared scan
 * (`gitMessagesSection`). Never throws: a sandbox without a byte stream, a workspace without `.git/`, or a read
 * that fails leaves the files as they are, with a log line.
 */
export async function redactGitMessagesInSandbox(sandbox: Sandbox, since: number | null, scanned?: SectionOutput): Promise<string[]> {
  const list = listScript(since);
  const redacted: string[] = [];
  try {
    for (const [name, data] of scanned ? await readStream(scanned) : await readChanged(sandbox, list)) {
      if (data.includes(0)) continue;
      const text = data.toString('utf8');
      const clean = redact(text);
      if (clean === text) continue;
      const path = `.git/${name.replace(/^\.\//, '')}`;
      await sandbox.writeFile(path, clean);
      redacted.push(path);
    }
  } catch (err) {
    log.warn({ err: (err as Error).message }, "could not redact git's commit message files and reflogs; they are snapshotted as they are");
  }
  return redacted;
}

/** The files of the one tar stream of `list | tar`, by path; none when the read failed or was cut. */
async function readStream(r: { exitCode: number | null; stdout: Buffer; truncated?: boolean; timedOut?: boolean }): Promise<Map<string, Buffer>> {
  if (r.exitCode !== 0 || r.truncated || r.timedOut || r.stdout.length === 0) return new Map();
  return readTextFiles(Readable.from([r.stdout]), []);
}

/**
 * The files `list` (a shell script printing NUL-separated paths under `.git/`) names, by path: in one tar stream
 * where the sandbox streams bytes, else one `cat` each (the local sandbox). Throws what the sandbox throws.
 */
async function readChanged(sandbox: Sandbox, list: string): Promise<Map<string, Buffer>> {
  if (sandbox.execBytes) {
    return readStream(await sandbox.execBytes(['sh', '-c', `${list} | tar --null --no-recursion -T - -cf -`, 'sh', sandbox.workspaceDir], { maxOutputBytes: MAX_READ_BYTES, timeoutMs: 60_000 }));
  }
  const names = (await sandbox.exec(['sh', '-c', list, 'sh', sandbox.workspaceDir], { timeoutMs: 60_000 })).stdout.split('\0').filter(Boolean);
  const files = new Map<string, Buffer>();
  for (const name of names) {
    const r = await sandbox.exec(['cat', '--', `.git/${name}`], { timeoutMs: 60_000 });
    if (r.exitCode === 0) files.set(name, Buffer.from(r.stdout, 'utf8'));
  }
  return files;
}
