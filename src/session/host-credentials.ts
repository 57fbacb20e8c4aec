/**
 * The credential files of the user's own directory that a fresh copy takes into the store (thirteenth trial F1):
 * `.env`, `.npmrc`, a remote URL with a password in `.git/config`… are the user's files, kept as they are (a run
 * must see the project as it is), but a new user was never told they now sit in every snapshot, and in the S3
 * bucket or CI cache the store goes to. Said once, on the fresh copy that first takes them, with the way to
 * leave them out (`snapshot.ignore`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redact } from '../memory/redact.js';
import { compileIgnore } from '../snapshot/ignore.js';
import { fsPath } from '../snapshot/names.js';
import { walkTree } from '../snapshot/walk.js';
import { DEPENDENCY_DIRS } from './credential-files.js';
import type { SessionNotice } from './types.js';

/** Names that hold credentials by purpose; a template (`.env.example`) does not. */
const BY_NAME = /^(?:\.env(?:\..+)?|\.npmrc|\.pypirc|\.netrc|_netrc|\.git-credentials|\.dockercfg|\.pgpass|\.my\.cnf|credentials(?:\.json)?|service-account.*\.json|id_(?:rsa|dsa|ecdsa|ed25519)|.+\.(?:pem|key|p12|pfx|jks|keystore))$/i;
/**
 * A project's configuration files, which may hold a literal password (`config.yml` with `password: X`, trial 21
 * F9): read like the files above; a value that is a reference (`${DB_PASSWORD}`) changes nothing under `redact`.
 * Every file of a configuration format counts, whatever its name (`docker-compose.yml`'s `POSTGRES_PASSWORD`, a
 * Helm `values.yml`: the re-trial of trial 21); JSON and XML, which projects use for everything, only by name.
 */
const CONFIG_NAME = /^(?:[\w.-]*(?:config|settings|application|secrets?|database|credentials?|connections?)[\w.-]*\.(?:json|xml)|[\w.-]+\.(?:ya?ml|toml|conf|cfg|ini|properties))$/i;
/** A word every secret a config file can hold is named with or shaped like; files without one are not redacted. */
const MAY_HOLD = /pass|secret|token|key|auth|cred|pwd|-----BEGIN|:\/\/[^\s:@/]+:[^\s@]+@/i;
const TEMPLATE = /\.(?:example|sample|template|dist|defaults?|tpl)$|^\.env\.(?:example|sample|template)/i;
/** Bytes read of a candidate; a credential file is small. */
const MAX_BYTES = 256 * 1024;
/** Files listed by name in the notice; the rest are counted. */
const SHOWN = 8;

/**
 * The credential files of `workspace` that hold a secret (`redact` changes their text; a binary key store by its
 * name alone), outside dependency folders, `.git/` (but for `.git/config`) and `ignore` (the store's
 * `snapshot.ignore`); relative paths, sorted. Never throws: an unreadable file is skipped.
 */
export async function hostCredentialFiles(workspace: string, ignore: string[]): Promise<string[]> {
  const ignored = compileIgnore(ignore);
  const deps = new Set(DEPENDENCY_DIRS);
  const skip = (path: string): boolean =>
    ignored(path) || path.split('/').some((s) => deps.has(s)) || (path.startsWith('.git/') && path !== '.git/config');
  const found: string[] = [];
  try {
    for await (const e of walkTree(workspace, [], { ignore: skip, onSkip: () => undefined })) {
      if (e.type !== 'file' || e.stats.size > MAX_BYTES) continue;
      const name = e.path.slice(e.path.lastIndexOf('/') + 1);
      if (e.path !== '.git/config' && (!(BY_NAME.test(name) || CONFIG_NAME.test(name)) || TEMPLATE.test(name))) continue;
      const data = await readFile(fsPath(join(workspace, e.path))).catch(() => null);
      if (!data) continue;
      const binary = data.includes(0);
      const text = binary ? '' : data.toString('utf8');
      if (binary ? /\.(?:p12|pfx|jks|keystore)$/i.test(name) : (BY_NAME.test(name) || MAY_HOLD.test(text)) && redact(text) !== text) found.push(e.path);
    }
  } catch {
    // A tree that cannot be walked is reported by the copy itself.
  }
  return found.sort();
}

/** The `host-credentials` notice for `files` (see `hostCredentialFiles`), or null when there are none. Pure. */
export function hostCredentialsNotice(workspace: string, files: string[]): SessionNotice | null {
  if (files.length === 0) return null;
  const shown = files.slice(0, SHOWN).join(', ') + (files.length > SHOWN ? ` and ${files.length - SHOWN} more` : '');
  return {
    kind: 'host-credentials',
    file: workspace,
    message: `${files.length} file(s) of ${workspace} hold credentials and are copied with the workspace into every snapshot of the store (and wherever the store is shipped: an S3 bucket, a CI cache): ${shown}`,
    hint: `to leave them out, set snapshot.ignore (e.g. --set snapshot.ignore=${files.slice(0, 3).join(',')}, or MNEMARA_SNAPSHOT_IGNORE in CI), or take the secret out of the file; the run then works without them`,
  };
}
