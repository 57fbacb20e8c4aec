/**
 * Hex encodings of a token spread over lines: `xxd -p` (60 hex digits a line), `xxd`, `hexdump -C` and
 * `od -An -tx1` dumps. HEX_RUN (`redact-encoded.ts`) sees one unbroken run only, so a token cut by the dump's
 * line width, or written as spaced byte groups beside an offset, stayed whole in the hex.
 */
import { decodeHexText } from './redact-encoded.js';
import { pushAll } from '../config/arrays.js';

/** A dump line's hex bytes, or `null` when the line is not a hex dump line. */
function lineHex(line: string): string | null {
  const plain = /^[0-9a-fA-F]+$/.exec(line);
  if (plain && line.length % 2 === 0) return line;
  // xxd: `00000000: 6768 705f …  ghp_…` (the text column is after two spaces). Each group must end at a
  // space, so a long unbroken run cannot be cut into groups in many ways (no backtracking blow-up).
  const xxd = /^[0-9a-fA-F]{6,16}: ((?:[0-9a-fA-F]{2,4} )*[0-9a-fA-F]{2,4})(?: {2}|$)/.exec(line);
  if (xxd) return (xxd[1] ?? '').replace(/ /g, '');
  // hexdump -C: `00000000  67 68 70 5f …  |ghp_…|`.
  const hd = /^[0-9a-fA-F]{6,16} {2}((?:[0-9a-fA-F]{2} +)+)\|/.exec(line);
  if (hd) return (hd[1] ?? '').replace(/ /g, '');
  // od -An -tx1, or bytes written with spaces: ` 67 68 70 5f …`, with an optional octal/hex offset first.
  const od = /^(?:[0-7]{7}|[0-9a-fA-F]{8})?\s*((?:[0-9a-fA-F]{2}\s+)+[0-9a-fA-F]{2})\s*$/.exec(line);
  if (od) return (od[1] ?? '').replace(/\s+/g, '');
  return null;
}

/**
 * `text` with every block of consecutive hex dump lines whose bytes, joined, decode to text holding a secret
 * shape (`hasSecret`) replaced by `marker` (the whole block: each line's hex and text column are parts of the
 * one token). Blocks that decode to random bytes (digests, SHAs, addresses) or hold no secret stay. Pure.
 */
export function redactHexDumps(text: string, marker: string, hasSecret: (decoded: string) => boolean): string {
  if (!/[0-9a-fA-F]{2}[\s\n:]/.test(text)) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    let hex = '';
    for (let h: string | null; j < lines.length && hex.length < 262_144 && (h = lineHex((lines[j] ?? '').replace(/\r$/, ''))) !== null; j++) hex += h;
    if (j === i) {
      out.push(lines[i++] ?? '');
      continue;
    }
    const decoded = hex.length >= 24 ? decodeHexText(hex) : null;
    if (decoded !== null && hasSecret(decoded)) out.push(marker);
    // Not spread into push(): a block runs to 262 144 hex digits, 131 072 lines of `00`, past the stack.
    else pushAll(out, lines.slice(i, j));
    i = j;
  }
  return out.join('\n');
}
