/**
 * A value after its secret name with only blanks between, where the `NAME=value` / `NAME: value` rules of
 * `redact.ts` see nothing: a C or C++ macro (`#define WIFI_PASSWORD "hunter2"`, also inside grep's `file:line:`
 * output), a Dockerfile's legacy `ENV NAME value`, csh's `setenv NAME value`, Apache's `SetEnv NAME value`, CMake's
 * `set(NAME "value")`, and a row of a two-column listing (PowerShell's `Get-ChildItem env: | Format-Table`,
 * `column -t`): a line that is only a secret name, two or more blanks or a tab, and one value.
 * Only the name decides (`secret-names.ts`), and only values that are secrets by `secret-values.ts` go: a bare
 * value by its strict rules (`#define TOKEN_KIND TOKEN_IDENT` is code), a quoted one by the loose ones.
 */
import { isSecretName } from './secret-names.js';
import { isSecretValue } from './secret-values.js';

const NAME = '([A-Za-z_][A-Za-z0-9_.-]*)';
const VALUE = `("(?:[^"\\\\\\n]|\\\\.)*"|'[^'\\n]*'|[^\\s"'()]+)`;
/** The keyword forms; group 1 the keyword with its blanks, 2 the name, 3 the blanks, 4 the value. */
const KEYWORD = new RegExp(`(#[ \\t]*define[ \\t]+|(?<![\\w-])(?:ENV|setenv|SetEnv)[ \\t]+|(?<![\\w-])set\\([ \\t]*)${NAME}([ \\t]+)${VALUE}`, 'g');
/** A listing's row: the whole line; group 1 the indent, 2 the name, 3 the column gap, 4 the value. */
const ROW = /^([ \t]*)([A-Za-z_][A-Za-z0-9_.-]*)( {2,}|\t[ \t]*)([^\s"']+)[ \t]*$/gm;

/**
 * A secret-named key, one blank, and a value of that key's shape (new-user trial 24: `aws_secret_access_key wJalr…`
 * with a space for the `=`): an AWS secret access key's name (also in words: "aws secret access key") and a
 * value of its shape (AWS_SECRET); any other secret name written as a key (with `_`, `-` or inner capitals:
 * `client_secret`, `apiKey`) and a random value of 16 or more (upper case, lower case and digits). Group 1 the name,
 * 2 the blanks, 3 the value.
 */
// Case matters in the name's alternatives (no `i` flag): `[a-z]+(?:[A-Z]…)+` read case-blind backtracks without end
// on a long run of letters (a base64 line).
const KEY_BLANK_VALUE = /(?<![\w-])((?:[Aa][Ww][Ss][_ -]?)?[Ss][Ee][Cc][Rr][Ee][Tt][_ -]?[Aa][Cc][Cc][Ee][Ss][Ss][_ -]?[Kk][Ee][Yy]|[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+)([ \t]+)([A-Za-z0-9/+=_.~-]{16,})(?![\w/+=.~-])/g;
/**
 * An AWS secret access key's shape: 40 characters of base64's alphabet, with upper and lower case and a digit or
 * `/`/`+`; 30 to 64 taken, as a key pasted with a character lost or added (the trial's had 41) is still the key.
 */
const AWS_SECRET = /^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9/+])[A-Za-z0-9/+]{30,64}$/;
/** A random value: upper case, lower case and digits, not all of one class of word (`ReadOnlyAccessPolicy2`). */
const RANDOM = /^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=(?:.*[0-9]){2}).{16,}$/;

/**
 * `text` with the value of each form above (KEYWORD, ROW) replaced by `markerFor(name)` (quotes kept); `onRedact` gets each value
 * replaced. Pure apart from `onRedact`; idempotent (a marker is not a secret value).
 */
export function redactSpacedAssignments(text: string, markerFor: (name: string) => string, onRedact: (value: string) => void): string {
  const replace = (m: string, pre: string, name: string, gap: string, value: string): string => {
    if (!isSecretName(name)) return m;
    const quoted = /^["']/.test(value);
    const bare = quoted ? value.slice(1, -1) : value;
    if (!isSecretValue(bare, !quoted)) return m;
    onRedact(bare);
    const q = quoted ? value[0] : '';
    return `${pre}${name}${gap}${q}${markerFor(name)}${q}`;
  };
  if (!/[ \t]{2,}|\t|define|ENV|setenv|SetEnv|set\(/.test(text)) return text;
  return text.replace(KEYWORD, replace).replace(ROW, replace);
}

/**
 * `text` with the value of each KEY_BLANK_VALUE replaced by `markerFor(name)` (`secret` for an AWS key's label);
 * `onRedact` gets each value. Run after the client rules, which know a command's own forms (`aws configure set
 * aws_secret_access_key X` is a password given to a client, left to them). Pure apart from `onRedact`; idempotent.
 */
export function redactKeyBlankValue(text: string, markerFor: (name: string) => string, onRedact: (value: string) => void): string {
  return text.replace(KEY_BLANK_VALUE, (m, name: string, gap: string, value: string, offset: number) => {
    // `aws configure set NAME X` is a client's positional password (redact-positional.ts), marked as one there.
    if (/configure[ \t]+set[ \t]+$/.test(text.slice(Math.max(0, offset - 40), offset))) return m;
    const aws = /secret[_ -]?access[_ -]?key$/i.test(name);
    if (!(aws ? AWS_SECRET.test(value) : !/ /.test(name) && isSecretName(name) && RANDOM.test(value)) || !isSecretValue(value, false)) return m;
    onRedact(value);
    return `${name}${gap}${markerFor(aws ? 'secret' : name)}`;
  });
}
