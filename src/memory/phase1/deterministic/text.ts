/** Small text helpers shared by the deterministic rules. */

import { clipGraphemes } from '../../tokens.js';

/** At most `max` characters (graphemes: never inside an emoji or a combining sequence), cut with an ellipsis. */
export function clip(text: string, max: number): string {
  return clipGraphemes(text, max);
}

/** Quotes a line of tool output as data (typographic quotes, so that it cannot close a code span). */
export function quote(line: string): string {
  return `“${line.replace(/[“”`]/g, "'")}”`;
}

const STOP = new Set(['the', 'and', 'for', 'with', 'from', 'this', 'that', 'run', 'not', 'error', 'failed', 'sudo', 'don', 'please', 'stop', 'here', 'are', 'like', 'over', 'you', 'must']);

/** Distinct search words: commands, paths, package names, error codes (lower case, at most 8). */
export function keywordsOf(texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const w of t.toLowerCase().match(/[a-z0-9][a-z0-9_.:/@+-]{2,}/g) ?? []) {
      const word = w.replace(/[.:]+$/, '');
      if (word.length < 3 || STOP.has(word) || /^\d+$/.test(word)) continue;
      out.add(word);
      if (out.size >= 8) return [...out];
    }
  }
  return [...out];
}
