/**
 * A secret the agent prints in pieces (`printf 'ghp_'; printf 'T26aB3…'`) is whole only in the tool's output, where
 * redaction catches it; the command that printed it holds each piece apart, where no rule can see a token (trial 26
 * N15). The output tells which value it was: the pieces of it that the command holds verbatim go too.
 */

/** Pieces shorter than this (characters) are left: a 4-character `ghp_` or a word may well occur by chance. */
export const MIN_PIECE = 12;

/** A secret `redact` replaced, with the kind its marker named. */
export interface ReplacedSecret {
  value: string;
  kind: string;
}

const MARKER_RUN = /((?:\[REDACTED:[a-z0-9_]+\])+)/;

/**
 * The values `redact` replaced in `original` to give `redacted`, found by laying the text between markers over
 * the original (a run of adjacent markers is one value, of the first marker's kind). Values that already held a
 * marker, and any the alignment cannot place, are left out: this never throws. Pure.
 */
export function replacedSecrets(original: string, redacted: string): ReplacedSecret[] {
  if (original === redacted) return [];
  const parts = redacted.split(MARKER_RUN);
  const head = parts[0] ?? '';
  if (!original.startsWith(head)) return [];
  const out: ReplacedSecret[] = [];
  let pos = head.length;
  for (let i = 1; i < parts.length; i += 2) {
    const kind = /\[REDACTED:([a-z0-9_]+)\]/.exec(parts[i]!)![1]!;
    const next = parts[i + 1] ?? '';
    const last = i + 2 >= parts.length;
    const end = last ? (original.endsWith(next) ? original.length - next.length : -1) : original.indexOf(next, pos + 1);
    if (end <= pos) return out;
    const value = original.slice(pos, end);
    if (!value.includes('[REDACTED:')) out.push({ value, kind });
    pos = end + next.length;
  }
  return out;
}

/**
 * `text` with every piece of a secret of `secrets` that it holds verbatim (at least `MIN_PIECE` characters, no
 * whitespace, longest first) replaced by that secret's marker. Pure; `text` unchanged when it holds no piece.
 */
export function redactSecretPieces(text: string, secrets: readonly ReplacedSecret[]): string {
  let out = text;
  for (const { value, kind } of secrets) {
    for (const word of value.split(/\s+/)) {
      if (word.length < MIN_PIECE) continue;
      for (let i = 0; i + MIN_PIECE <= word.length; i++) {
        if (!out.includes(word.slice(i, i + MIN_PIECE))) continue;
        // The longest piece from here that the text holds: replaced whole, not in overlapping bits.
        let end = i + MIN_PIECE;
        while (end < word.length && out.includes(word.slice(i, end + 1))) end++;
        out = out.split(word.slice(i, end)).join(`[REDACTED:${kind}]`);
        i = end - 1;
      }
    }
  }
  return out;
}
