/**
 * Whether a value assigned to a name that says secret is one: the value rules `redact.ts` applies to
 * assignments, shared with the config-file key scan (`secret-keys.ts`) so both decide alike.
 */
import { isDevDefault } from './redact-dev-defaults.js';
import { isPlainUrl } from './redact-urls.js';
import { isSecretName } from './secret-names.js';
import { REDACTED_RE } from './redact-boundaries.js';


/** Values that stand for "no secret here": types, empties, documented placeholders. Compared lower-cased. */
const PLACEHOLDERS = new Set(['', 'null', 'none', 'nil', 'true', 'false', 'undefined', 'string', 'str', 'number', 'int', 'bool', 'boolean', 'required', 'optional', 'any', 'unknown', 'bytes', 'xxx', '...', '***', '<redacted>', 'redacted', 'changeme']);

/**
 * Whether a value assigned to a secret name should be redacted or reported: not a reference (`$VAR`, `${VAR}`,
 * `{{ template }}`, `%(name)s`, `{field}`, a field's name as `nextToken`), a version or package spec (`^9.0.2`, `workspace:*`), a placeholder (`<your-token>`, `xxxxxxxx`, `your-api-key-here`, `changeme`, `***`),
 * a type, a documented local development default (`redact-dev-defaults.ts`), a plain URL, an absolute path, or shorter than 4
 * characters. `strict`: the value stands in `name: value` code (TypeScript annotations, keyword arguments), where a
 * bare identifier is a type or a variable, not a secret. Pure.
 */
export function isSecretValue(value: string, strict: boolean): boolean {
  const v = value.trim();
  if (REDACTED_RE.test(v)) return false;
  // Binary read as text (random bytes held `pat:¸!º\x1dÕ\x13l`): no typed value holds a control character; ESC
  // stays possible, as a colour code around a token is taken apart by the rules that read one (redactHidden).
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f-\u009f]/.test(v)) return false;
  if (PLACEHOLDERS.has(v.toLowerCase())) return false;
  if (/^(\$|\{\{|<[^>]*>$|%\()/.test(v)) return false; // $VAR, ${VAR}, {{ template }}, <your-token>, %(name)s
  if (/^(\*+|x{3,}|X{3,})$/.test(v) || /^your[-_ ]/i.test(v)) return false; // ****, xxxxxxxx, your-api-key-here
  if (/^\{[A-Za-z_][\w.]*\}$/.test(v)) return false; // {db_password}, {__relative_name__}: a format string's field
  // A field's name in camel case (`"output_token": "nextToken"`, `clientSecret`): a reference to where the secret is.
  // Not when digits run into letters inside it (`QueryParamSecretTrial19xyz`, `PgT21Secret`: keys, trials 13 and
  // 21); a field name carries a version at most at its end (`clientSecret2`, `apiKeyV2`). Field names start in
  // lower case: `MySecret` in `DB_PASSWORD=MySecret` is the password (trial 21).
  // Code's `,` or `;` after it (`clientSecret: clientSecret2,` in an object literal) does not make it a value.
  const field = v.replace(/[,;]$/, '');
  if (/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+$/.test(field) && !/[0-9][A-Za-z]/.test(field) && isSecretName(field)) return false;
  if (isDevDefault(v)) return false;
  // An absolute path of two or more segments names where something is (`"pwd": "/workspace/app"`, `SSH_KEY=~/.ssh/id`).
  if (/^(?:~|\/[\w.@+-]+)(?:\/[\w.@+-]+)+\/?$/.test(v)) return false;
  if (/^(?:[\^~]|[<>]=?|=)?v?\d+(?:\.(?:\d+|x|\*))+(?:-[\w.]+)?$|^(?:workspace|npm|file|link|catalog):/.test(v)) return false; // ^9.0.2, workspace:* (a package.json dependency named jsonwebtoken)
  if (v.length < 4) return false;
  if (isPlainUrl(v)) return false;
  // A constant's or enum member's name as the value (`Token: "STRING_VALUE"` in an SDK's docs, `"TOKEN_EXPIRED"`),
  // and a number written with digit separators (`CREDENTIAL_PURGE_INTERVAL_MS = 30_000`).
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v) || /^\d{1,3}(?:_\d{3})+$/.test(v)) return false;
  // A value that ends by opening a bracket continues past what was read: `process.env[` of `key=process.env['K']`.
  if (/^[A-Za-z_$](?:[\w$.?]|::)*[[(]$/.test(v)) return false;
  // A scheme word and a reference (`Bearer $GITHUB_TOKEN`, `Basic ${AUTH}`): the header names where the secret is.
  if (/^(?:Bearer|Basic|Token|Bot)\s+(?:\$|\{\{|<)/i.test(v)) return false;
  // The scheme word alone, the credential added by code after it (`headers.set('Authorization', 'Basic ' + b64)`).
  if (/^(?:Bearer|Basic|Token|Bot|Digest|Negotiate)$/i.test(v)) return false;
  if (strict) {
    if (/^[A-Za-z_][A-Za-z_<>[\]|]*[,;:)\]}>{]*$/.test(v) && v.length < 24) return false; // string, Token):
    // A name of any length without a digit: a constant or class (`apiKeys = BETA_CLIENT_TOOL_UNION_KEYS;`).
    if (/^[A-Za-z_$][A-Za-z_$]*[,;)]*$/.test(v)) return false;
    if (/^\(/.test(v)) return false; // (typeof X), (options, platform) => …: an expression
    // A camel-case name that code ends with `,` or `;` (`withXSRFToken: defaultToConfig2,` in an object literal).
    if (/^[a-z_$][a-z0-9_$]*(?:[A-Z][a-z0-9_$]*)+[,;)]+$/.test(v)) return false;
    if (/^[A-Za-z_$][\w$]*(\??\.[A-Za-z_$][\w$]*)+[,;:)!?]*$/.test(v)) return false; // process.env.API_KEY;, process.env.API_KEY!, opts?.workSecret
    // getToken(), os.environ[, existing?.[, and paths of Rust, C++, PHP and Ruby: std::env::var(, Secret::new(
    if (/^[A-Za-z_$](?:[\w$.?]|::)*[[(]/.test(v)) return false;
    if (/^[A-Za-z_$][\w$.]*<.*>(\[\])*[,;:)=]*$/.test(v)) return false; // React.Dispatch<SetStateAction<string>>
    if (/^[A-Za-z_$][\w$.]*(\[\])*(\s*\|\s*[A-Za-z_$][\w$.<>[\]]*)+[,;)]*$/.test(v)) return false; // string | null
  }
  return true;
}
