/**
 * Where a secret's match may start, for the rules of `redact.ts`: a token shape must not continue a word (but a
 * percent escape before it ends the word), and an assignment's name may start right after an escaped line break.
 */

/** A character that joins the one before a match to it (see `B` in redact.ts). */
const TOKEN_CHAR = /[A-Za-z0-9]/;

/**
 * Whether a match at `offset` of `text` continues a word. A percent escape before it ends the word: `key%3Dghp_…`,
 * `%22sk-ant-…%22` in a URL or a form body put the token right behind the escape's hex digits. Pure.
 */
export function insideWord(text: string, offset: number): boolean {
  return TOKEN_CHAR.test(text.charAt(offset - 1)) && !/%[0-9A-Fa-f]{2}$/.test(text.slice(Math.max(0, offset - 3), offset));
}

/**
 * The start of a lookbehind group (closed by the caller's own lookbehind) letting a name start right after an
 * escaped line break or tab (`printf '[db]\npass = …'`, a serialized `.env`), where the escape's letter would
 * otherwise be read as the name's first (`npass`).
 */
export const AFTER_ESCAPE = '(?:(?<=\\\\[nrt])|';

/**
 * Text that starts with a redaction marker, in any case: consolidation lower-cases entry texts (`.state.json`), so
 * `[redacted:password]` is mnemara's own marker too, never a value (trial 22 F7: `memory forget` counted two).
 */
export const REDACTED_RE = /^\[REDACTED:[a-z_]+\]/i;
