/**
 * Whether a name (env var, YAML/JSON key, CLI flag) says its value is a secret: the word-level rules
 * `redact` applies to assignments (`redact.ts`), kept apart so the patterns there stay readable.
 */

const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'secrets', 'token', 'credential', 'credentials', 'apikey', 'pat', 'authorization', 'sig', 'salt', 'authtoken']);
const SECRET_PAIRS: Array<[string, string]> = [
  ['api', 'key'],
  ['access', 'key'],
  ['private', 'key'],
  ['secret', 'key'],
  ['auth', 'key'],
  ['session', 'key'],
  ['signing', 'key'],
  ['encryption', 'key'],
  ['master', 'key'],
  ['client', 'secret'],
  ['auth', 'token'],
  ['account', 'key'],
  // Keys that sign, encrypt or grant by their first word (eleventh trial: `hmac_key: <40 hex>` stayed).
  ['hmac', 'key'],
  ['jwt', 'key'],
  ['app', 'key'],
  ['license', 'key'],
  ['shared', 'key'],
  ['webhook', 'key'],
  ['cipher', 'key'],
  ['aes', 'key'],
  ['storage', 'key'],
  ['sas', 'key'],
  ['service', 'key'],
  ['admin', 'key'],
  ['root', 'key'],
];
/** Words that make a secret-looking name describe something else (a limit, a path, a variable's name). */
const NOT_SECRET_WORDS = new Set([
  'max', 'min', 'count', 'length', 'len', 'limit', 'limits', 'file', 'path', 'dir', 'url', 'endpoint', 'type',
  'name', 'names', 'expiry', 'expires', 'ttl', 'usage', 'budget', 'header', 'field', 'policy', 'prefix',
  'regex', 'pattern', 'env', 'var', 'ref', 'id', 'store', 'manager', 'provider', 'rotation', 'required', 'helper',
  // Pagination cursors (`input_token`, `next_token`, `page_token`: botocore and Google APIs), opaque, not secrets.
  'input', 'output', 'next', 'page', 'pagination', 'continuation', 'marker',
  // Where it is read from (`--password-stdin reg.io`: the registry is the argument, the secret comes on stdin).
  'stdin', 'cmd', 'command',
]);

function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const SECRET_HINT_RE = /pass|pwd|secret|token|key|credential|auth|pat|^sig$|salt|cookie/i;

/**
 * Whether an assigned name (env var, YAML key, JSON key, CLI flag) looks like it holds a secret:
 * `GITHUB_TOKEN`, `dbPassword`, `client_secret`, `ANTHROPIC_API_KEY` yes; `PWD`, `max_tokens`, `TOKEN_FILE` no.
 * `PWD`/`OLDPWD` are the shell's working directory, not a password (a lower-case `pwd` key is one).
 */
export function isSecretName(name: string): boolean {
  // Fast path: most names (PATH, HOME, LANG …) hold none of the parts a secret name needs.
  if (!SECRET_HINT_RE.test(name)) return false;
  // The shell's variables are upper case; a lower-case `pwd` is a config's password key (`{"db": {"pwd": …}}`).
  if (name === 'PWD' || name === 'OLDPWD' || name === 'oldpwd') return false;
  // A tool's prefix in front of the name it passes on (`TF_VAR_db_password`, `INPUT_TOKEN` in GitHub Actions):
  // judged by the name after it, since `var`/`input` alone would read as "names a variable". Upper case only: a
  // lower-case `input_token` is a pagination cursor (botocore), not `INPUT_` + `token`.
  const prefixed = /^(?:TF_VAR_|INPUT_|PULUMI_CONFIG_|NOMAD_VAR_|PKR_VAR_)(.+)$/.exec(name);
  if (prefixed) return isSecretName(prefixed[1]!);
  // A service account key's id (GCP `private_key_id`) names the key: treat it as the key.
  if (/private_?key_?id$/i.test(name)) return true;
  const words = nameWords(name);
  if (words.some((w) => NOT_SECRET_WORDS.has(w))) {
    // AWS_ACCESS_KEY_ID etc. hold key ids whose own shape rule catches them; a `..._ID` name alone is not secret.
    return false;
  }
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  // `DB_PASS` is a password, but `gbuffer_pass.cpp` and `TaaPass` are not: only a trailing `pass` in a plain name.
  if (words.at(-1) === 'pass' && /^[A-Za-z0-9_-]+$/.test(name) && !/[a-z]Pass$/.test(name)) return true;
  // So is a trailing `auth` of a variable or config key (`REDISCLI_AUTH`, npm's `_auth`: the credential itself);
  // `AUTH_MODE`, `auth_url` name how it is done.
  if (words.at(-1) === 'auth' && words.length <= 3 && /^[A-Za-z0-9_-]+$/.test(name) && !/[a-z]Auth$/.test(name)) return true;
  const joined = words.join('_');
  if (/(password|passwd|secret|token|apikey|credential)/.test(joined.replace(/_/g, '')) && !/tokens|tokeniz/.test(joined)) return true;
  return SECRET_PAIRS.some(([a, b]) => {
    const i = words.indexOf(a);
    return i >= 0 && words[i + 1] === b;
  });
}
