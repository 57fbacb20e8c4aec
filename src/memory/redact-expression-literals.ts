/**
 * Secrets the assignment rules of `redact.ts` do not see, because the value is not the whole right-hand side or the
 * name is too short to trust (new-user trials 23 and 24):
 * - a secret name given an expression that wraps a literal: PowerShell's `$password = ConvertTo-SecureString 'X'
 *   -AsPlainText`, Python's `password = SecretStr("X")` and `os.getenv("DB_PASSWORD", "X")`, Rust's
 *   `let password = String::from("X")`, `api_key = Secret.fromString("X")`. The assignment rule read the call's
 *   head (`ConvertTo-SecureString`, `SecretStr(`) as the value and the literal stayed;
 * - a name whose secret word is the abbreviation `pw` (`var pw = "…"`, `db_pw := '…'`, `adminPw: "…"`), which is
 *   also Playwright's usual name (`const pw = require('playwright')`), so its value must look like a password.
 *
 * In both, a literal goes only when it looks generated or typed as a password (`looksLikePassword`): one word,
 * 6+ characters, with a digit or sign beside its letters, not a name of something (an env var, a dotted key, a
 * header). Prompts ("Enter password: "), env var names and algorithm names stay.
 */
import { isSecretName } from './secret-names.js';
import { isSecretValue } from './secret-values.js';

/** `pw` as a name's last word: `pw`, `PW`, `db_pw`, `adminPw`, `ADMIN_PW` (not `pwsh`, `npw`). */
const SHORT_PW_NAME = /^(?:[A-Za-z0-9]*[_-])?(?:pw|PW)$|^[a-z][A-Za-z0-9]*Pw$/;

/**
 * Whether `value` (a string literal's content) reads as a password or key rather than a word, a name or a message:
 * no whitespace, 6–200 characters, a secret by `isSecretValue`, and letters mixed with a digit or a sign. Pure.
 */
export function looksLikePassword(value: string): boolean {
  if (value.length < 6 || value.length > 200 || /\s/.test(value)) return false;
  if (!isSecretValue(value, false)) return false;
  // A digit, or a sign inside a mixed-case word: a selector (`#login`) or a flag (`--force`) opens with its sign.
  if (!/[A-Za-z]/.test(value) || !(/[0-9]/.test(value) || (/.[!@#$%^&*+=?~]/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value)))) return false;
  // An env var's or setting's name (`DB_PASSWORD`, `security.jwt.secret`, `x-auth-token`), an algorithm (`HS256`).
  if (/^[A-Z0-9_]+$/.test(value) && value.includes('_')) return false;
  if (/^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+$/.test(value)) return false;
  if (/^(?:HS|RS|ES|PS)(?:256|384|512)$|^(?:sha|SHA)-?\d+$|^utf-?8$/i.test(value)) return false;
  return true;
}

const NAME = '(\\$?[A-Za-z_][A-Za-z0-9_]*)';
/** `=`, `:=` or `:` (an object's key), not `==`, `=>`, `::`. */
const SEP = '([ \\t]*(?::=|=(?![=>])|:(?![:=]))[ \\t]*)';
/** The right-hand side up to the statement's end on this line. */
const RHS = '([^\\n;]*)';
const ASSIGNED = new RegExp(`(?<![\\w$.\\\\])${NAME}${SEP}(?=${RHS})`, 'g');
/** An expression's head: an identifier chain called or given an argument (`SecretStr(`, `ConvertTo-SecureString '`). */
const EXPRESSION_HEAD = /^(?:new[ \t]+|await[ \t]+)?[A-Za-z_$][\w$]*(?:(?:\.|::|-)[A-Za-z_$][\w$]*)*(?:[ \t]*\(|[ \t]+(?=["'(-]))/;
const LITERAL = /"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'/g;

/**
 * `text` with every password-like string literal (`looksLikePassword`) replaced by `marker(name)` where it is
 * (1) inside an expression assigned to a secret name (`isSecretName`) or (2) the value of a `pw` name, quoted or
 * bare. Quotes stay. Replaced values go to `remember`. Pure otherwise; idempotent (a marker is no literal).
 */
export function redactExpressionLiterals(text: string, marker: (name: string) => string, remember: (value: string) => void): string {
  if (!/[=:]/.test(text)) return text;
  // Edits by start offset: the right-hand side is only looked at, not consumed, so that a secret name further on
  // the same line (`cfg = { password: decrypt("…") }`) is tried too.
  const edits = new Map<number, { end: number; by: string }>();
  const replaceAt = (at: number, value: string, length: number, name: string): void => {
    if (!looksLikePassword(value)) return;
    remember(value);
    edits.set(at, { end: at + length, by: marker(name) });
  };
  const literalsIn = (part: string, at: number, name: string): void => {
    for (const lit of part.matchAll(LITERAL)) {
      const value = lit[1] ?? lit[2] ?? '';
      replaceAt(at + lit.index! + 1, value, value.length, name);
    }
  };
  for (const m of text.matchAll(ASSIGNED)) {
    const [whole, name, sep, rhs] = m as unknown as [string, string, string, string];
    const bare = name.replace(/^\$/, '');
    const shortPw = SHORT_PW_NAME.test(bare);
    if (!shortPw && !isSecretName(bare)) continue;
    const rhsAt = m.index! + whole.length;
    // Only a name that says secret in full: `pw` is also Playwright's handle (`pw = page.locator("#a1")`).
    if (!shortPw && EXPRESSION_HEAD.test(rhs)) {
      literalsIn(rhs, rhsAt, bare);
      continue;
    }
    // A typed declaration (`password: SecretStr = SecretStr("…")`, `val token: String = decode("…")`): the type first.
    const typed = !shortPw && sep.includes(':') ? /^[A-Za-z_$][\w$.<>[\], |]*?[ \t]*=(?![=>])[ \t]*/.exec(rhs) : null;
    if (typed && EXPRESSION_HEAD.test(rhs.slice(typed[0].length))) {
      literalsIn(rhs.slice(typed[0].length), rhsAt + typed[0].length, bare);
      continue;
    }
    if (!shortPw) continue;
    // A `pw` name's own value: a literal first on the right, or a bare word up to a blank (`PW=…`).
    const quoted = /^(["'])([^\n]*?)\1/.exec(rhs);
    if (quoted) replaceAt(rhsAt + 1, quoted[2]!, quoted[2]!.length, bare);
    else {
      const word = /^[^\s"'`,;)]+/.exec(rhs)?.[0] ?? '';
      replaceAt(rhsAt, word, word.length, bare);
    }
  }
  if (edits.size === 0) return text;
  let out = '';
  let from = 0;
  for (const at of [...edits.keys()].sort((a, b) => a - b)) {
    const edit = edits.get(at)!;
    if (at < from) continue;
    out += text.slice(from, at) + edit.by;
    from = edit.end;
  }
  return out + text.slice(from);
}
