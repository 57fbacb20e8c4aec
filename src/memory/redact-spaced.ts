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
 * `text` with the value of each form above replaced by `markerFor(name)` (quotes kept); `onRedact` gets each value
 * replaced. Pure apart from `onRedact`; idempotent (a marker is not a secret value).
 */
export function redactSpacedAssignments(text: string, markerFor: (name: string) => string, onRedact: (value: string) => void): string {
  if (!/[ \t]{2,}|\t|define|ENV|setenv|SetEnv|set\(/.test(text)) return text;
  const replace = (m: string, pre: string, name: string, gap: string, value: string): string => {
    if (!isSecretName(name)) return m;
    const quoted = /^["']/.test(value);
    const bare = quoted ? value.slice(1, -1) : value;
    if (!isSecretValue(bare, !quoted)) return m;
    onRedact(bare);
    const q = quoted ? value[0] : '';
    return `${pre}${name}${gap}${q}${markerFor(name)}${q}`;
  };
  return text.replace(KEYWORD, replace).replace(ROW, replace);
}
