/**
 * Files the run created or changed that hold what looks like a secret with no token shape, so that
 * `secret-files.ts`'s token scan does not see it:
 * - a config file with a value under a key whose name says secret (issue 10, eighth trial, M2):
 *   `{"db_password": "Tr0ub4dor&3x"}`, `api_secret: hunter2-prod-9`, `password = s3cr3tP@ss`,
 *   `//registry.npmjs.org/:_authToken=…` (`memory/secret-keys.ts`, with redaction's own name and value rules);
 * - any text file with a value redaction takes out of a transcript (tenth trial, H3: these passed silently):
 *   `DATABASE_URL=postgres://app:…@db` in `.env`, `client_secret = "…"` in `main.tf`, Go and Rust constants,
 *   a nested JSON `pwd`, "the staging password is …" in a note (`findSecretKinds`).
 *
 * These files are reported, never left out: a guess by a key's name or a value's form is not proof enough to take
 * a user's file out of their snapshot (`docker-compose.yml` with a local database's password is normal). The
 * report names the file, the keys or kinds and the lines, never the value, and says what to do. Placeholders
 * (`changeme`, `<your-token>`, `${VAR}`, `xxxxxxxx`, empty values), types (`password: string`) and documented local
 * development defaults (`POSTGRES_PASSWORD: postgres`, `postgres://postgres:postgres@localhost`) are not reported.
 */
import { logger } from '../config/logger.js';
import { findSecretKinds, type SecretKind } from '../memory/redact.js';
import { configFormOfName, findSecretKeys } from '../memory/secret-keys.js';
import type { Sandbox } from '../sandbox/types.js';
import { DEPENDENCY_DIRS } from './credential-files.js';
import { pathRecords, sectionText, type ScanSection, type SectionOutput } from './workspace-scan.js';

const log = logger('session');

/** Files above this size are not read: configs and sources are a few KiB; bigger ones are data or lock files. Bytes. */
const MAX_BYTES = 256 * 1024;

/**
 * What `grep -iE` keeps of a changed file, for the host to judge: a word a secret-named key holds
 * (`secret-names.ts`), a URL with a password (`postgres://app:…@db`), a client's password form (SQL's
 * `IDENTIFIED BY`, PowerShell's `ConvertTo-SecureString`), or a password or login word of prose in the languages
 * redaction reads (`redact-prose.ts`). Lines without one are never sent.
 */
const LINE_HINT = [
  'pass|pwd|secret|token|key|credential|creds|auth|salt|log[io]n|identified by|securestring',
  '://[^/[:space:]:@]*:[^/[:space:]@]+@',
  'passwort|kennwort|zugang|anmeldedaten|contrase|senha|mot de passe|identifiants|credenc|credenz|wachtwoord|inloggegevens|toegangscode|has..?o|пароль|şifre|密码|密碼|口令|パスワード|비밀번호',
].join('|');

/**
 * The kinds of redaction (`findSecretKinds`) reported here: a value known by its name or form, with no token shape.
 * Token shapes are `secret-files.ts`'s (left out, not only reported), private keys `credential-files.ts`'s.
 */
const REPORTED_KINDS: Partial<Record<SecretKind, string>> = {
  url_password: "a URL's password",
  password: 'a password',
  secret: 'a secret value',
  bearer_token: 'a bearer token',
  jwt: 'a JWT',
};

/**
 * A file the run wrote that holds what looks like a secret with no token shape: its path (workspace-relative) and
 * each finding with its line. `key`: the secret-named key of a config file; `kind` (with `key` its label): a value
 * redaction would take out of a transcript, found in any text file (`DATABASE_URL=postgres://u:…@db`,
 * `client_secret = "…"` in `main.tf`, `const API_KEY: &str = "…"`, "the staging password is …" in notes).
 */
export interface SecretKeyFile {
  path: string;
  keys: Array<{ key: string; line: number; kind?: SecretKind }>;
}

/**
 * Finds the text files changed after `since` (sandbox seconds), up to 256 KiB, not under `.git/` (but each
 * repository's `config`, `COMMIT_EDITMSG` and `logs/HEAD`: a remote's URL, a commit message), installed
 * dependencies, `skipDirs` (the memory layout, redacted in place) nor `skip` (files already left out), that hold
 * a value under a secret-named key (config files by name: `.json`, `.yaml`, `.ini`, `.cfg`, `.conf`, `.toml`,
 * `.properties`, `.env*`, `.npmrc`, `.pypirc`, `.netrc`) or, in any text file, a value redaction takes out of a
 * transcript (REPORTED_KINDS). One `find | grep` in the sandbox prints the lines with a hint (LINE_HINT); the check
 * of each line is on the host (cost follows the change: unchanged files are never read). `scanned`: that grep's
 * output, from the shared scan (`secretKeysSection`, `workspace-scan.ts`). Never throws: a scan that fails is
 * logged and reports nothing.
 */
export async function findSecretKeyFiles(
  sandbox: Sandbox,
  since: number,
  options: { skipDirs: string[]; skip: Set<string>; scanned?: SectionOutput },
): Promise<SecretKeyFile[]> {
  const root = sandbox.workspaceDir;
  const section = secretKeysSection('secret-keys', root, since, options.skipDirs);
  const found = await sectionText(sandbox, section, options.scanned, 60_000, 'could not look for secret values in the files the run wrote');
  if (found === null) return [];
  const byPath = new Map<string, SecretKeyFile['keys']>();
  // `path NUL lineno:line` records, read so that a name with a newline cannot pass for a record of its own.
  for (const [path, rest] of pathRecords(found)) {
    const m = /^(\d+):/.exec(rest);
    if (!m || !path.startsWith(`${root}/`)) continue;
    const rel = path.slice(root.length + 1);
    if (options.skip.has(rel)) continue;
    const keys = lineFindings(rel, rest.slice(m[0].length), Number(m[1]));
    if (keys.length) byPath.set(rel, [...(byPath.get(rel) ?? []), ...keys]);
  }
  const out: SecretKeyFile[] = [...byPath].map(([path, keys]) => ({ path, keys }));
  out.sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const f of out) log.warn({ path: f.path, keys: f.keys.map((k) => k.key) }, 'a file the run wrote holds what looks like a secret');
  return out;
}

/**
 * The scan of `findSecretKeyFiles` (one `find | grep` printing `path NUL lineno:line` records), run by it or as a
 * section of the shared scan (`workspace-scan.ts`).
 */
export function secretKeysSection(name: string, root: string, since: number, skipDirs: string[]): ScanSection {
  const prune = [
    ...skipDirs.map((d) => `-path "$1/${d.replace(/["$`\\]/g, '')}"`),
    // Every repository's `.git`, nested ones too: `git init` writes sample hooks that read as secrets.
    ...['.git', ...DEPENDENCY_DIRS].map((d) => `-name '${d}'`),
  ].join(' -o ');
  // One grep a batch prints each line with a hint as `path NUL lineno:line` (binary files skipped); a key and its
  // value share a line in every form read here (`findSecretKeys` and `findSecretKinds` are given the line alone).
  // Three files of each repository are read apart from the rest of `.git`: its config (`git remote add origin
  // https://deploy:…@host/…` keeps the password there, round 17's secrets trial), and the last commit message and
  // the reflog, which repeat a message that tells one ("rotate: staging password is now …", twelfth trial).
  const script = [
    `{ find "$1" -xdev \\( ${prune} \\) -prune -o -type f -newerct "@$2" -size -$(( $3 + 1 ))c -print0 2>/dev/null`,
    `  find "$1" -xdev -name .git -type d -prune -print0 -o \\( ${prune} \\) -prune 2>/dev/null |`,
    `    xargs -0 -r -I{} find {}/config {}/COMMIT_EDITMSG {}/logs/HEAD -maxdepth 0 -type f -newerct "@$2" -size -$(( $3 + 1 ))c -print0 2>/dev/null; } |`,
    `xargs -0 -r grep -HnIZiE -e "$4" -- 2>/dev/null; exit 0`,
  ].join('\n');
  return { name, script, args: [root, String(since), String(MAX_BYTES), LINE_HINT], maxBytes: 16 * 1024 * 1024 };
}

/** What one line (number `line`) of the file `rel` holds: secret-named keys of a config file, else redaction's kinds. Pure. */
function lineFindings(rel: string, text: string, line: number): SecretKeyFile['keys'] {
  const form = configFormOfName(rel);
  const keys = form ? findSecretKeys(text, form).map(({ key }) => ({ key, line })) : [];
  if (keys.length) return keys;
  // In a repository's own files every kind counts: the token scan never reads `.git/` (`git config
  // http.extraHeader "Authorization: Bearer ghp_…"`, as CI checkouts give git a token, twelfth trial).
  const git = /(?:^|\/)\.git\//.test(rel);
  const kinds = [...new Set(findSecretKinds(text))].filter((k) => git || REPORTED_KINDS[k] !== undefined);
  return kinds.map((kind) => ({ key: REPORTED_KINDS[kind] ?? `a token (${kind})`, line, kind }));
}

/** One line for the run summary: the file and what it holds where (never the values), and what to do. */
export function secretKeyFileMessage(f: SecretKeyFile): string {
  const found = f.keys.map((k) => `${k.kind ? 'as' : 'under'} ${k.key} (line ${k.line})`).join(', ');
  const why = f.keys.every((k) => !k.kind) ? 'its key says so' : 'by its name or form';
  if (/(?:^|\/)\.git\//.test(f.path)) {
    return `${f.path} holds what looks like a secret ${found} (${why}) and is in the workspace snapshot: a git remote's URL or a commit message holds it; set the remote without it (git remote set-url, a credential helper) or reword the commit (git commit --amend, git rebase -i), and rotate it if it is real`;
  }
  return `${f.path} holds what looks like a secret ${found} (${why}; the value has no known token shape) and is in the workspace snapshot: read it from an environment variable or a file listed in snapshot.ignore instead, and rotate it if it is real`;
}
