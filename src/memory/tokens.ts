/**
 * Conservative token estimate for budgets (MEMORY.md cap, summary cap, the prompt's memory block, the
 * transcript given to the model) when the endpoint's `count_tokens` is not asked. Per character, not per
 * byte: about 4 ASCII characters a token (English and code with Claude's tokenizer); a Han, kana or hangul
 * character at least one token (UTF-8 bytes / 4 counted them as 0.75, which undercounts Chinese and Japanese
 * text); other non-ASCII letters (accented Latin, Cyrillic, Greek …) half a token; an emoji or other
 * pictograph two. Errs on the high side, so a budget it says fits does fit.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let units = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) ascii += 1;
    else if (CJK.test(ch)) units += 1.1;
    else if (PICTO.test(ch)) units += 2;
    else units += 0.5;
  }
  return Math.ceil(ascii / 4 + units);
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
const PICTO = /\p{Extended_Pictographic}/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * At most `max` user-perceived characters (grapheme clusters, `Intl.Segmenter`), cut with an ellipsis:
 * never inside a surrogate pair, an emoji sequence or a combining mark (issue 12: a cut emoji left U+FFFD in
 * MEMORY.md and a lone surrogate in the raw-memory JSON).
 */
export function clipGraphemes(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return t; // ≤ max UTF-16 units is ≤ max graphemes
  const out: string[] = [];
  for (const { segment } of graphemes.segment(t)) {
    if (out.length >= max - 1) return `${out.join('')}…`;
    out.push(segment);
  }
  return t;
}
