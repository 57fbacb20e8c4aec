/**
 * Secrets in disguise: a known token wrapped in base64 (`echo -n ghp_… | base64`, a Kubernetes Secret's
 * `data:`) and long random values assigned to a name that does not say secret (`SESSION_SALT=…`, `"signature": "…"`).
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

/** A line break inside a wrapped base64 block: a real one, or the escape `\n` (`\r\n`) once or more escaped. */
const WRAP_BREAK = String.raw`(?:\r?\n|\\{1,7}(?:r\\{1,7})?n)`;
/**
 * A base64 block wrapped over lines (`base64` wraps at 76 columns, `openssl base64` and PEM bodies at 64): a
 * first line of 40+ characters, then lines of the same alphabet, each after a break and optional indentation.
 * It starts at a line start or after a non-base64 character (or an escaped `\n`).
 */
const WRAPPED_BASE64 = new RegExp(
  String.raw`(?:(?<![A-Za-z0-9+/=_-])|(?<=\\n))[A-Za-z0-9+/]{40,}(?:${WRAP_BREAK}[ \t]*[A-Za-z0-9+/]{4,}={0,2})+(?![A-Za-z0-9+/=_-])`,
  'g',
);

/**
 * Base64 wrapped over lines whose lines, joined, decode to text holding a secret (`isSecretText`): the block
 * becomes `mark`. Each line alone decodes to a cut piece, so the per-run rule caught only the line that held a
 * token's prefix and kept the rest of the key (trial 22 F6). The block is its first line and the lines after it of
 * the same length, then one shorter last line if there is one; what follows (`next` of a YAML `next: 1`) stays.
 */
export function redactWrappedBase64(text: string, isSecretText: (decoded: string) => boolean, mark: string): string {
  if (!text.includes('\n') && !text.includes('\\')) return text;
  const seam = new RegExp(`(${WRAP_BREAK}[ \t]*)`);
  return text.replace(WRAPPED_BASE64, (match: string) => {
    // Lines at even indexes, the breaks between them at odd ones.
    const parts = match.split(seam);
    const lines = parts.filter((_, i) => i % 2 === 0);
    const width = lines[0]?.length ?? 0;
    let count = 1;
    while (count < lines.length && lines[count]?.length === width) count += 1;
    if (count < lines.length && (lines[count]?.length ?? 0) < width) count += 1;
    if (count < 2) return match;
    const decoded = decodeBase64Text(lines.slice(0, count).join(''));
    return decoded !== null && isSecretText(decoded) ? mark + parts.slice(2 * count - 1).join('') : match;
  });
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
export function isWordy(value: string): boolean {
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

/** A run of hex pairs long enough to hold a token (`echo 6768705f… | xxd -r -p`), optionally `\x`- or space-free. */
export const HEX_RUN = /(?<![0-9A-Fa-f])((?:[0-9a-fA-F]{2}){12,})(?![0-9A-Fa-f])/g;

/**
 * The text a hex run decodes to, when it is mostly printable (else `null`): digests, hashes and ids decode to
 * random bytes and are left alone. At most 64 KiB of a run is decoded.
 */
export function decodeHexText(run: string): string | null {
  const text = Buffer.from(run.slice(0, 131_072), 'hex').toString('latin1');
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09) printable++;
  }
  return printable / text.length >= 0.9 ? text : null;
}
