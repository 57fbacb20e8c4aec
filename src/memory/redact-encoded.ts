/**
 * Secrets in disguise: a known token wrapped in base64 (`echo -n ghp_… | base64`, a Kubernetes Secret's
 * `data:`), a token split over two lines (a wrapped terminal line, a `\`-continued command), and long random
 * values assigned to a name that does not say secret (`SESSION_SALT=…`, `"signature": "…"`).
 */

/** A base64 (or base64url) run long enough to hold a token. */
export const BASE64_RUN = /(?<![A-Za-z0-9+/_-])([A-Za-z0-9+/_-]{24,}={0,2})(?![A-Za-z0-9+/=_-])/g;

/**
 * The text a base64 run decodes to, when it decodes to mostly printable text (else `null`): only such text can
 * hold a token shape. At most 64 KiB of a run is decoded.
 */
export function decodeBase64Text(run: string): string | null {
  if (run.length % 4 === 1 || /^[0-9a-f]+$/i.test(run) || /^[A-Za-z]+$/.test(run)) return null;
  const text = Buffer.from(run.slice(0, 65_536), run.includes('-') || run.includes('_') ? 'base64url' : 'base64').toString('latin1');
  if (text.length < 12) return null;
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09) printable++;
  }
  return printable / text.length >= 0.9 ? text : null;
}

/** Known token prefixes whose continuation on the next line is part of the token. */
const SPLIT_PREFIX = /(?:sk-ant-|sk-proj-|sk-|ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|glpat-|xox[abposrce]-|AIza|sk_live_|sk_test_|rk_live_|npm_|hf_|pypi-|hvs\.|dckr_pat_|AKIA|ASIA|eyJ)[A-Za-z0-9_.-]{6,}/;

/**
 * A token cut by a line break: `…ghp_abc` at the end of a line (optionally with a `\` continuation) and a run of
 * token characters starting the next line. Joins the two parts into one line, so the shape rules see the whole
 * token. Only lines that end in a known prefix's token are touched, and not when that token is whole by itself
 * (`isWholeToken`) or the next line starts a token of its own.
 */
export function joinSplitTokens(text: string, isWholeToken: (head: string) => boolean): string {
  if (!text.includes('\n')) return text;
  return text.replace(/([A-Za-z0-9_.-]{8,})\\?\r?\n[ \t]*([A-Za-z0-9_-]{6,})(?=[\s"'`,;)\]}]|$)/g, (m, head: string, tail: string) =>
    // A next line that starts a token of its own is not a continuation (two keys listed one a line).
    SPLIT_PREFIX.test(head) && !/\[REDACTED/.test(head) && !isWholeToken(head) && !new RegExp(`^${SPLIT_PREFIX.source}`).test(tail) && !/^(?:rk|sk|pk)_/.test(tail) ? `${head}${tail}` : m,
  );
}

/** Names whose long random value is a hash, id or checksum, not a secret (`h1`: a go.sum hash). */
const NOT_SECRET_HOLDERS = /(?:^h\d|integrity|hash|sum|checksum|digest|sha\d*|md5|etag|commit|rev|revision|version|id|uuid|guid|ref|image|tag|path|file|url|uri|href|src|name|key_id|keyid|fingerprint|nonce_id|resolved|signature_algorithm)$/i;

/** Shannon entropy of `s`, bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Whether a value is made of words (`UserProfileCard2Props`, `TestCase_Login_Admin_01`, `v1.2.3-beta.4+Build5`):
 * half or more of its letters are in word-like runs of 4+ letters (`Test`, `Login`, `BETA`) and a third or more
 * of its letters are vowels.
 */
function isWordy(value: string): boolean {
  let letters = 0;
  let inWords = 0;
  for (const t of value.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? []) {
    letters += t.length;
    if (t.length >= 4) inWords += t.length;
  }
  // Random letters are vowels a fifth of the time (10 of 52); words, a third or more.
  const vowels = value.match(/[aeiouAEIOU]/g)?.length ?? 0;
  return inWords * 2 >= letters && vowels >= 0.3 * letters;
}

/**
 * A path or file name rather than a random value: starts like a path, ends in a file extension, or every
 * segment between slashes is lower case (`node_modules/@scope/pkg/dist`).
 */
function isPathLike(value: string): boolean {
  if (!value.includes('/') && !/\.[A-Za-z]{1,5}$/.test(value)) return false;
  return /^(?:\/|\.\.?\/|~\/)/.test(value) || /\.[A-Za-z]{1,5}$/.test(value) || value.split('/').every((seg) => /^[a-z0-9_.@-]*$/.test(seg));
}

/**
 * Whether a value assigned to a name that does not say secret (`SESSION_SIGNING_VALUE=9fK2…`) is nevertheless
 * random enough to be one. The rule (issue 10, item 8), for assignment context only (env, YAML, JSON, INI):
 * - 20 to 512 characters of the base64/base64url alphabets, upper case, lower case and digits all present;
 * - random, not words: fewer than half its letters in word-like runs (isWordy), and the entropy near the most a
 *   string of that length can have (≥ log2(length) − 0.6 bits a character, capped at 4.2);
 * - code stays: a member expression (`legacy_ts_1.RIPEMD160`) or an alphabet (`ABCDE…`);
 * - data, not a secret, stays: hex (git SHAs, sha256 digests, UUIDs of either case), `sha512-…` and other
 *   integrity strings (package-lock, yarn, pnpm, SRI), paths and file names, and any value under a name for
 *   hashes, ids, versions or references (NOT_SECRET_HOLDERS: `integrity`, `checksum`, `digest`, `etag`,
 *   `commit`, `uuid`, `resolved`, …).
 */
export function isHighEntropyValue(name: string, value: string): boolean {
  // A `=` inside (not base64 padding) is a nested assignment (`--from-literal=password=…`), for the other rules.
  if (value.length < 20 || value.length > 512 || !/^[A-Za-z0-9+/_.-]+=*$/.test(value)) return false;
  if (NOT_SECRET_HOLDERS.test(name.replace(/[-.]/g, '_'))) return false;
  if (/^(?:sha\d+|md5)-/.test(value) || /^[0-9a-f-]+$/i.test(value) || isPathLike(value)) return false;
  if (!/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/[0-9]/.test(value)) return false;
  // A member expression of code (`jsx_syntax_1.JSXSyntax.JSXClosingElement`) and an alphabet (`ABC…xyz0123…`).
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) || /ABCDE|abcde|01234|56789/.test(value)) return false;
  const body = value.replace(/=+$/, '');
  if (isWordy(body)) return false;
  return entropy(body) >= Math.min(4.2, Math.log2(body.length) - 0.6);
}

/**
 * A word continued on the next line with a backslash (`Bearer abcd\` ⏎ `efgh…`, `export TOKEN=ab\` ⏎ `cd`): the
 * shell joins the two parts into one word, so the rules must see them joined, whatever the value's shape (the
 * known-prefix join above covers only provider tokens). A continuation is joined when the line, joined, has its
 * secret end past the break: `redactLine(line + tail)` no longer ends with the tail. An indented tail is a word of
 * its own to the shell (`--rm \` ⏎ `  -v x:y`), so it is joined only when the head alone was not already
 * redacted: then the split hid the secret (a wrapped token). Everything else is left as written.
 */
export function joinContinuations(text: string, redactLine: (line: string) => string): string {
  // Found from each `\` ⏎ outwards rather than by one regex over the text: a regex that starts with a run of
  // word characters tries every position of every long line.
  const CONTINUATION = /\\\r?\n/g;
  const parts: string[] = [];
  let done = 0;
  for (let m = CONTINUATION.exec(text); m !== null; m = CONTINUATION.exec(text)) {
    const at = m.index;
    let start = at;
    while (start > done && !/[\s\\]/.test(text.charAt(start - 1))) start--;
    const after = /^([ \t]*)([^\s"'`;|&)<>\\]+)/.exec(text.slice(at + m[0].length, at + m[0].length + 4096));
    if (start === at || !after) continue;
    const [, indent, tail] = after as unknown as [string, string, string];
    const head = text.slice(start, at);
    if (/\[REDACTED:[a-z_]+\]$/.test(head)) continue;
    const line = text.slice(text.lastIndexOf('\n', start) + 1, at);
    if (redactLine(line + tail).endsWith(tail)) continue;
    if (indent !== '' && /\[REDACTED:[a-z_]+\]["']?$/.test(redactLine(line))) continue;
    parts.push(text.slice(done, start), head + tail);
    done = at + m[0].length + indent.length + tail.length;
    CONTINUATION.lastIndex = done;
  }
  return done === 0 ? text : parts.join('') + text.slice(done);
}
