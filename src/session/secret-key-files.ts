/**
 * Config files the run created or changed that hold a value under a key whose name says secret (issue 10, eighth
 * trial, M2): `{"db_password": "Tr0ub4dor&3x"}`, `api_secret: hunter2-prod-9`, `password = s3cr3tP@ss`,
 * `//registry.npmjs.org/:_authToken=…`. Such a value has no provider prefix, so `secret-files.ts`'s token scan
 * does not see it; the key does (`memory/secret-keys.ts`, with redaction's own name and value rules).
 *
 * These files are reported, never left out: a guess by a key's name is not proof enough to take a user's config
 * out of their snapshot (`docker-compose.yml` with a local database's password is normal). The report names the
 * file and the keys, never the value, and says what to do. Placeholders (`changeme`, `<your-token>`, `${VAR}`,
 * `xxxxxxxx`, empty values), types (`password: string`) and documented local development defaults
 * (`POSTGRES_PASSWORD: postgres`) are not reported.
 */
import { logger } from '../config/logger.js';
import { configFormOfName, findSecretKeys } from '../memory/secret-keys.js';
import type { Sandbox } from '../sandbox/types.js';
import { DEPENDENCY_DIRS } from './credential-files.js';

const log = logger('session');

/** Config files above this size are not read: configs are a few KiB; bigger JSON is data or a lock file. Bytes. */
const MAX_BYTES = 256 * 1024;

/** File names `configFormOfName` reads, as `find -name` globs (a cheap first cut in the sandbox). */
const CONFIG_GLOBS = ['*.json', '*.jsonc', '*.json5', '*.yaml', '*.yml', '*.ini', '*.cfg', '*.conf', '*.toml', '*.properties', '*.env', '.env', '.env.*', '.npmrc', '.pypirc', '.yarnrc', '.netrc', '_netrc'];

/** Words a secret-named key holds (`secret-names.ts`), for `grep -i`: files without one are not read. */
const KEY_HINT = 'pass|pwd|secret|token|key|credential|auth|salt';

/** A config file the run wrote with values under secret-named keys: its path (workspace-relative) and those keys with their lines. */
export interface SecretKeyFile {
  path: string;
  keys: Array<{ key: string; line: number }>;
}

/**
 * Finds the config files (by name: `.json`, `.yaml`, `.ini`, `.cfg`, `.conf`, `.toml`, `.properties`, `.env*`,
 * `.npmrc`, `.pypirc`, `.netrc`) changed after `since` (sandbox seconds), up to 256 KiB, not under `.git/`,
 * installed dependencies, `skipDirs` (the memory layout, redacted in place) nor `skip` (files already left out),
 * that hold a value under a secret-named key. One `find | grep` in the sandbox prints the lines with a key hint;
 * the check of each line is on the host. Never throws: a scan that fails is logged and reports nothing.
 */
export async function findSecretKeyFiles(sandbox: Sandbox, since: number, options: { skipDirs: string[]; skip: Set<string> }): Promise<SecretKeyFile[]> {
  const root = sandbox.workspaceDir;
  const prune = [
    ...['.git', ...options.skipDirs].map((d) => `-path "$1/${d.replace(/["$`\\]/g, '')}"`),
    ...DEPENDENCY_DIRS.map((d) => `-name '${d}'`),
  ].join(' -o ');
  const names = CONFIG_GLOBS.map((g) => `-name '${g}'`).join(' -o ');
  // One grep a batch prints each line with a key hint as `path NUL lineno:line`; a key and its value share a line
  // in every form read here (`findSecretKeys` is given the line alone).
  const script = [
    `find "$1" -xdev \\( ${prune} \\) -prune -o -type f -newerct "@$2" -size -$(( $3 + 1 ))c \\( ${names} \\) -print0 2>/dev/null |`,
    `xargs -0 -r grep -HnIZiE -e '${KEY_HINT}' -- 2>/dev/null; exit 0`,
  ].join('\n');
  const found = await sandbox
    .exec(['sh', '-c', script, 'sh', root, String(since), String(MAX_BYTES)], { timeoutMs: 60_000, maxOutputBytes: 16 * 1024 * 1024 })
    .catch((err: Error) => {
      log.warn({ err: err.message }, 'could not look for secret values in the config files the run wrote');
      return null;
    });
  if (!found) return [];
  const byPath = new Map<string, Array<{ key: string; line: number }>>();
  for (const row of String(found.stdout).split('\n')) {
    const cut = row.indexOf('\0');
    const m = cut < 0 ? null : /^(\d+):/.exec(row.slice(cut + 1));
    if (!m || !row.startsWith(`${root}/`)) continue;
    const rel = row.slice(root.length + 1, cut);
    const form = configFormOfName(rel);
    if (!form || options.skip.has(rel)) continue;
    const keys = findSecretKeys(row.slice(cut + 1 + m[0].length), form).map(({ key }) => ({ key, line: Number(m[1]) }));
    if (keys.length) byPath.set(rel, [...(byPath.get(rel) ?? []), ...keys]);
  }
  const out: SecretKeyFile[] = [...byPath].map(([path, keys]) => ({ path, keys }));
  out.sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const f of out) log.warn({ path: f.path, keys: f.keys.map((k) => k.key) }, 'a config file the run wrote holds a value under a secret-named key');
  return out;
}

/** One line for the run summary: the file and its keys (never the values), and what to do. */
export function secretKeyFileMessage(f: SecretKeyFile): string {
  const keys = f.keys.map((k) => `${k.key} (line ${k.line})`).join(', ');
  return `${f.path} holds what looks like a secret under ${keys} (its key says so; the value has no known token shape) and is in the workspace snapshot: read it from an environment variable or a file listed in snapshot.ignore instead, and rotate it if it is real`;
}
