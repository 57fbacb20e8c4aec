/**
 * A secret name and its value given as a pair, where neither `NAME=value` nor `"name": "value"` is written:
 * - two quoted strings of a call or an array: PHP's `define('DB_PASSWORD', '…')` and `'password' => '…'`,
 *   `$config['db_password'] = '…'`, Python's `os.environ.setdefault("SECRET_KEY", "…")`, Java's
 *   `System.setProperty("db.password", "…")`, `config.set('api_token', '…')`;
 * - a declaration with a type between (`const API_KEY: &str = "…";`, `var apiKey string = "…"`);
 * - markup: an element named by the secret (`<password>…</password>`, Maven's `settings.xml`), an element or tag
 *   that names it in an attribute and holds the value in another (`<property name="password" value="…"/>` of Ant
 *   and Spring, `<add key="ApiSecret" value="…"/>` of .NET's `app.config`, `<entry key="db.password">…</entry>`
 *   of a Java properties XML).
 * Only the name decides (`secret-names.ts`) and only a value that is a secret by `secret-values.ts` goes (its loose
 * rules: the value is quoted or inside an element, never code), so `define('DB_NAME', 'wordpress')` and
 * `<property name="passwordField" value="userPassword"/>` stay.
 */
import { isSecretName } from './secret-names.js';
import { isSecretValue } from './secret-values.js';

const NAME = '([A-Za-z_][A-Za-z0-9_.-]*)';
/**
 * Where a call or declaration may start: not inside a word, or right after an escaped line break or tab of a
 * string that writes code (`printf "<?php\\ndefine('DB_PASSWORD', …)"`; eleventh trial: the `n` hid it).
 */
const START = '(?:(?<=\\\\[nrt])|(?<![\\w$]))';
/** The keywords that open a declaration (TYPED), also its cheap pre-check. */
const DECLARING = 'const|let|var|val|static|final|readonly|pub|private|public|internal';
/**
 * `'NAME'] = 'value'` / `'NAME' => 'value'` (assignments), or `'NAME', 'value'` as the first two arguments of a
 * call that sets (`define(`, `setdefault(`, `setProperty(`, `set(`, `put(` …): a comma alone also separates a list's
 * items (`['password', 'username']`, `t('password', 'Password')`). Group 1 up to the value's quote, 3 the name,
 * 5 the value.
 */
const QUOTED_PAIR = new RegExp(
  `((?:${START}(?:define|constant|setdefault|set[A-Z]?\\w*|put\\w*|add|setenv|putenv)\\([ \\t]*(["'])${NAME}\\2[ \\t]*,|(["'])${NAME}\\4(?:\\][ \\t]*=|[ \\t]*=>))[ \\t]*(["']))((?:\\\\.|(?!\\6)[^\\\\\\n])*)(?=\\6)`,
  'g',
);
/**
 * A declaration with a type between the name and a quoted value: Rust's `const API_KEY: &str = "…";`, Kotlin's
 * `val apiKey: String = "…"`, TypeScript's `const apiKey: string = '…'`, Go's `var apiKey string = "…"`. A
 * declaring keyword must come first. Group 1 up to the value's quote, 2 the name, 4 the value.
 */
const TYPED = new RegExp(
  `((?:(?<=\\\\[nrt])|(?<![\\w$.]))(?:${DECLARING})(?:\\([a-z]+\\))?[ \\t]+(?:(?:mut|static|const|final|readonly)[ \\t]+)*${NAME}(?:[ \\t]*:[ \\t]*[&\\w<>\\[\\]'.,: ]{1,40}?|[ \\t]+[A-Za-z_][\\w.\\[\\]]*)[ \\t]*=[ \\t]*(["']))((?:\\\\.|(?!\\3)[^\\\\\\n])*)(?=\\3)`,
  'g',
);
const DECLARED = new RegExp(`(?:${DECLARING})[ \\t(]`);
/** `<NAME>value</NAME>`; group 1 the opening tag, 2 the name, 3 the value. */
const ELEMENT = new RegExp(`(<${NAME}(?:\\s[^<>]*)?>)([^<>\\n]{1,512})(?=</\\2>)`, 'g');
/** `<tag name="NAME" value="v"`; group 1 up to the value's quote, 2 the name, 4 the value. */
const ATTRIBUTE_PAIR = new RegExp(`(<[A-Za-z][\\w:.-]*\\s(?:[^<>]*?\\s)?(?:name|key|id)=(["'])${NAME}\\2\\s+(?:[\\w:.-]+=(?:"[^"]*"|'[^']*')\\s+)*?(?:value|content)=(["']))([^"'<>\\n]*)(?=\\4)`, 'g');
/** `<entry key="NAME">value</entry>`; group 1 up to the value, 3 the name, 4 the value. */
const KEYED_ELEMENT = new RegExp(`(<([A-Za-z][\\w:.-]*)\\s(?:[^<>]*?\\s)?(?:name|key)=["']${NAME}["'][^<>]*>)([^<>\\n]{1,512})(?=</\\2>)`, 'g');

/**
 * `text` with the value of each pair above replaced by `markerFor(name)` (quotes and markup kept); `onRedact` gets
 * each value replaced. Pure apart from `onRedact`; idempotent (a marker is not a secret value).
 */
export function redactPairs(text: string, markerFor: (name: string) => string, onRedact: (value: string) => void): string {
  const secret = (name: string, value: string): boolean => {
    if (!isSecretName(name) || !isSecretValue(value.trim(), false)) return false;
    onRedact(value.trim());
    return true;
  };
  let out = text;
  if (/['"][ \t]*(?:,|=>|\])/.test(out)) {
    out = out.replace(QUOTED_PAIR, (m, pre: string, _q: string, called: string | undefined, _q2: string, assigned: string | undefined, _vq: string, value: string) => {
      const name = called ?? assigned ?? '';
      return secret(name, value) ? `${pre}${markerFor(name)}` : m;
    });
  }
  if (DECLARED.test(out)) {
    out = out.replace(TYPED, (m, pre: string, name: string, _q: string, value: string) => (secret(name, value) ? `${pre}${markerFor(name)}` : m));
  }
  if (!out.includes('<')) return out;
  out = out.replace(ATTRIBUTE_PAIR, (m, pre: string, _q: string, name: string, _vq: string, value: string) => (secret(name, value) ? `${pre}${markerFor(name)}` : m));
  out = out.replace(KEYED_ELEMENT, (m, open: string, _tag: string, name: string, value: string) => (secret(name, value) ? `${open}${markerFor(name)}` : m));
  return out.replace(ELEMENT, (m, open: string, name: string, value: string) => (secret(name, value) ? `${open}${markerFor(name)}` : m));
}
