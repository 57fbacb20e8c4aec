import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';
import { classifyCredentialFile } from './credential-kinds.js';
import type { ScanSection, SectionOutput } from './workspace-scan.js';

const log = logger('session');

/** Files larger than this are not read for the check (a credential file is a few KiB). Bytes. */
const MAX_BYTES = 256 * 1024;

/**
 * Lines that can start a credential file, as `grep -E` patterns: a cheap first pass in the sandbox over the files
 * the run touched; `classifyCredentialFile` decides on the whole content.
 */
const GREP_PATTERNS = [
  '-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY',
  '"private_key"[[:space:]]*:',
  '^[[:space:]]*aws_secret_access_key[[:space:]]*=',
  '^[[:space:]]*(machine|default)([[:space:]]|$)',
  '^[^:#[:space:]]+:[0-9*]+:[^:]+:[^:]+:',
  '"auths"[[:space:]]*:',
  'client-key-data:',
  '^https?://[^:/@[:space:]]+:[^@[:space:]]+@',
];

/**
 * Directories of installed dependencies, never scanned for credential or token files: their files are the
 * package manager's, not the run's secrets, and they ship test keys and example tokens (an `npm install` of axios
 * brings 20 PEM test keys, e.g. `public-encrypt/test/test_key.pem`; `@octokit/auth-token`'s README quotes
 * `ghp_PersonalAccessToken…`, the AWS SDK's `.d.ts` files `AKIAIOSFODNN7EXAMPLE`): leaving them out would change
 * the installed tree, and reading them made the check cost 30 s on that 37,000-file delta.
 */
export const DEPENDENCY_DIRS = ['node_modules', '.venv', 'venv', 'site-packages', '.yarn', '.pnpm-store'];

/** A credential file the run wrote into the workspace: its path (relative), what it holds, what was done. */
export interface CredentialFile {
  path: string;
  kind: string;
  /** `left-out`: not in the workspace snapshot (listed in its `skipped`); `kept`: in it, because it is the user's or the config says so. */
  action: 'left-out' | 'kept';
  why?: string;
  /** Where a `left-out` file is kept for the user on the host (`<home>/left-out/<rollout-id>/<path>`, 0600). */
  savedAt?: string;
}

/**
 * Takes a file (workspace-relative) out of the sandbox before the snapshot; its host copy, or `null` (not moved).
 * `savedAs`: the copy's relative path when it must differ (a name that holds a token is saved under its redacted name).
 */
export type LeaveOut = (relativePath: string, savedAs?: string) => Promise<string | null>;

/** How the session knows whether a path was the user's before the run (then it is never left out). */
export type WasThere = (relativePath: string) => boolean | 'unknown';

/** `WasThere` for a host checkout copied into the sandbox (`fresh`, `memory-from` starts). */
export function inHostCheckout(workspace: string): WasThere {
  return (rel) => lstatSync(join(workspace, rel), { throwIfNoEntry: false }) !== undefined;
}

/**
 * The sandbox's clock, seconds since the epoch with their fraction (nanoseconds where `date` has `%N`): the mark
 * files created or changed later are found by (`find -newerct @<since>`). Whole seconds let a file restored in
 * the same second as the run began count as the run's (the user's untouched token file was read and reported).
 */
export async function sandboxClock(sandbox: Sandbox): Promise<number | null> {
  const r = await sandbox.exec(['date', '+%s.%N'], { timeoutMs: 10_000 }).catch(() => null);
  // A `date` without %N prints it as it is: the whole seconds are still right.
  const m = r && r.exitCode === 0 ? /^(\d+)(\.\d+)?/.exec(String(r.stdout).trim()) : null;
  return m ? Number(`${m[1]}${m[2] ?? ''}`) : null;
}

/**
 * Issue 10, item 8: files the run created in the workspace whose content is a credential file (a PEM private key,
 * a GCP service-account key, an AWS credentials file, `.netrc`, `.pgpass`, a Docker `config.json` with auths, a
 * kubeconfig with a client key, `.git-credentials`; by content, never by name) are moved out of the workspace
 * before the snapshot, so no layer holds them. A file that was in the workspace before the run (`wasThere`) is the
 * user's and stays, and so does every file when `keep` (`snapshot.keepCredentialFiles`) is set; both are
 * reported. Files whose ctime is not after `since` (sandbox seconds), and installed dependencies
 * (`DEPENDENCY_DIRS`), are not looked at. A file left out goes through
 * `leaveOut` (`setAside`: a host copy only the user can read), so it is not lost. Never throws: a check that fails
 * is logged and leaves everything in place. `scanned`: the grep and the reads, done by the shared scan
 * (`credentialFilesSection`).
 */
export async function leaveOutCredentialFiles(
  sandbox: Sandbox,
  since: number,
  wasThere: WasThere,
  keep: boolean,
  leaveOut: LeaveOut,
  scanned?: SectionOutput,
): Promise<CredentialFile[]> {
  const root = sandbox.workspaceDir;
  const read = scanned ? readHeads(scanned.stdout) : await grepAndRead(sandbox, since);
  if (!read) return [];
  const out: CredentialFile[] = [];
  for (const [abs, text] of read) {
    if (!abs.startsWith(`${root}/`) || text === null) continue;
    const rel = abs.slice(root.length + 1);
    const kind = classifyCredentialFile(text);
    if (!kind) continue;
    const there = wasThere(rel);
    if (keep || there !== false) {
      out.push({ path: rel, kind, action: 'kept', why: keep ? 'snapshot.keepCredentialFiles is set' : there === true ? 'it was in the workspace before the run' : 'whether it was there before the run is not known' });
      continue;
    }
    const savedAt = await leaveOut(rel);
    if (savedAt !== null) out.push({ path: rel, kind, action: 'left-out', savedAt });
    else out.push({ path: rel, kind, action: 'kept', why: 'it could not be moved out of the workspace' });
  }
  for (const f of out) log.warn({ path: f.path, kind: f.kind, action: f.action, why: f.why }, 'a file the run wrote holds a credential');
  return out;
}

/** The grep of the changed files for a line that can start a credential file (argument: the workspace, the time). */
function grepScript(): string {
  return (
    `find "$1" -xdev \\( -path "$1/.git" ${DEPENDENCY_DIRS.map((d) => `-o -name '${d}'`).join(' ')} \\) -prune -o -type f -newerct "@$2" -size -${MAX_BYTES + 1}c -print0 | ` +
    `xargs -0 -r grep -lIZE ${GREP_PATTERNS.map((p) => `-e '${p.replace(/'/g, "'\\''")}'`).join(' ')} -- 2>/dev/null`
  );
}

/**
 * The grep and each hit's first bytes as a section of the shared scan (`workspace-scan.ts`): per hit, its path and
 * a NUL, then `-` and a NUL when it could not be read, else its length, a NUL and that many bytes (so a name or a
 * content can never pass for the next record).
 */
export function credentialFilesSection(name: string, root: string, since: number): ScanSection {
  const heads = `h=$(mktemp) || exit 0; for f; do printf '%s\\0' "$f"; if head -c ${MAX_BYTES} -- "$f" > "$h" 2>/dev/null; then printf '%s\\0' "$(stat -c %s "$h")"; cat "$h"; else printf -- '-\\0'; fi; done; rm -f "$h"`;
  return { name, script: `${grepScript()} | xargs -0 -r sh -c '${heads.replace(/'/g, "'\\''")}' sh; exit 0`, args: [root, String(since)], maxBytes: 64 * 1024 * 1024 };
}

/** The grep's hits (absolute paths) with each one's first bytes (`null`: not read), by their own execs; `null` when the grep failed. */
async function grepAndRead(sandbox: Sandbox, since: number): Promise<Array<[string, string | null]> | null> {
  const root = sandbox.workspaceDir;
  const found = await sandbox.exec(['sh', '-c', `${grepScript()}; exit 0`, 'sh', root, String(since)], { timeoutMs: 60_000 }).catch((err: Error) => {
    log.warn({ err: err.message }, 'could not look for credential files the run wrote; none left out');
    return null;
  });
  if (!found) return null;
  const out: Array<[string, string | null]> = [];
  for (const abs of String(found.stdout).split('\0').filter((p) => p.startsWith(`${root}/`))) {
    const content = await sandbox.exec(['head', '-c', String(MAX_BYTES), '--', abs], { timeoutMs: 10_000 }).catch(() => null);
    out.push([abs, content && content.exitCode === 0 ? String(content.stdout) : null]);
  }
  return out;
}

/** `credentialFilesSection`'s records as [absolute path, first bytes as text or `null`]; a cut record ends the list. Pure. */
function readHeads(stdout: Buffer): Array<[string, string | null]> {
  const out: Array<[string, string | null]> = [];
  let at = 0;
  while (at < stdout.length) {
    const end = stdout.indexOf(0, at);
    const lenEnd = end < 0 ? -1 : stdout.indexOf(0, end + 1);
    if (lenEnd < 0) break;
    const path = stdout.subarray(at, end).toString('utf8');
    const len = stdout.subarray(end + 1, lenEnd).toString('latin1');
    if (len === '-') {
      out.push([path, null]);
      at = lenEnd + 1;
      continue;
    }
    if (!/^\d+$/.test(len) || lenEnd + 1 + Number(len) > stdout.length) break;
    out.push([path, stdout.subarray(lenEnd + 1, lenEnd + 1 + Number(len)).toString('utf8')]);
    at = lenEnd + 1 + Number(len);
  }
  return out;
}

/** One line for the run summary: what the file holds, what was done, and how to keep it. */
export function credentialMessage(f: CredentialFile): string {
  return f.action === 'left-out'
    ? `${f.path} holds a credential (${f.kind}) and was left out of the workspace snapshot; ${keptFor(f.savedAt)}; to keep such files in snapshots, set snapshot.keepCredentialFiles=true (--set or your own config; a repository's config cannot)`
    : `${f.path} holds a credential (${f.kind}) and is in the workspace snapshot: ${f.why}`;
}

/** Where a left-out file is kept for the user, and what to do with it. */
export function keptFor(savedAt: string | undefined): string {
  return savedAt ? `your copy is ${savedAt} (only you can read it): copy it into your checkout if you need it, then delete it` : 'no copy was kept';
}
