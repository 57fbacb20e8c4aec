/**
 * Tokens a run wrote hex-encoded into a file (`printf %s "$T" | xxd -p -c0 > t.hex`, Python's `token.encode().hex()`,
 * Node's `Buffer.from(t).toString('hex')`): like base64 (`secret-base64.ts`), the encoding hides the provider prefix
 * from the file-token scan's grep. Hex has no offsets to care about: each byte is two digits, so a prefix encodes to
 * one string per letter case. The host decodes every match and runs the token rules on the text, so digests, ids and
 * other hex data are never reported.
 *
 * A token wrapped over several lines (`xxd -p` breaks every 30 bytes, shorter than most tokens) leaves the first line
 * with the prefix but not a whole token: the scan greps such a file again with its line breaks taken out
 * (`secret-files.ts`, `wrappedTokenFiles`).
 */
import type { SecretKind } from '../memory/redact.js';
import { PREFIXES } from './secret-base64.js';

/** Hex of each prefix, lower and upper case. Two-letter prefixes are not in `PREFIXES`; the shortest is 3 bytes. */
const FORMS = PREFIXES.flatMap((prefix) => {
  const hex = Buffer.from(prefix, 'latin1').toString('hex');
  return [hex, hex.toUpperCase()];
});

/**
 * One ERE alternative per prefix and case: its hex and at least 24 more hex digits (12 bytes of a token's body), of
 * either case (a prefix of digits alone, `AKIA`'s `414b4941`, is the same in both). Usable by grep -E; the scan runs
 * it in the same grep as `BASE64_TOKEN_ERE` (no base64 prefix string is all hex digits, so neither hides the other).
 */
export const HEX_TOKEN_ERE = [...new Set(FORMS)].map((hex) => `${hex}[0-9A-Fa-f]{24,}`).join('|');

/** What the hex run `match` (a grep match of `HEX_TOKEN_ERE`) decodes to (an odd last digit dropped), or null when that does not start with a provider prefix. Pure. */
export function hexPrefixText(match: string): string | null {
  if (!/^[0-9a-f]+$/i.test(match)) return null;
  const text = Buffer.from(match.slice(0, match.length - (match.length % 2)), 'hex').toString('latin1');
  return PREFIXES.some((p) => text.startsWith(p)) ? text : null;
}

/**
 * The token kinds in the hex run `match`, by `kindsOf` (the scan's `tokenKinds`) over the text `hexPrefixText`
 * decodes. `[]` when it decodes to no token. Pure.
 */
export function hexTokenKinds(match: string, kindsOf: (text: string) => SecretKind[]): SecretKind[] {
  const text = hexPrefixText(match);
  return text === null ? [] : [...new Set(kindsOf(` ${text}`))].sort();
}
