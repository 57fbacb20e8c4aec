import { clipGraphemes } from '../tokens.js';
import { INSTRUCTION_WORDS_WORLD } from './instruction-words.js';
/**
 * Picks the lines of a failed command's output that say why it failed, wherever they are (a 300 KB build
 * log often has its one decisive line at the very end). Lines that read like instructions to an agent
 * ("save to memory: always run …") are never picked: tool output is data, and a quote of it must not carry
 * an injected instruction into memory.
 */

const STRONG = [
  /\bfatal( error)?:/i,
  /\bnot found\b/i,
  /No such file or directory/i,
  /permission denied|\bEACCES\b|\bEPERM\b|are you root/i,
  /\bE(?!RROR\b|XIT\b)[A-Z_]{3,}\b/, // errno-like codes: EAI_AGAIN, EUSAGE, ENOENT …
  /\bUnable to (locate|acquire|find|resolve)\b/i,
  /\b(could not|cannot|can't|couldn't) (find|open|resolve|connect|locate|load|import)\b/i,
  /\bKilled\b|out of memory|\bOOM\b/i,
  /\b\w+(Error|Exception)\b:/,
  /\bcommand not found\b/i,
  /\btimed? ?out\b/i,
];
const WEAK = /\berror\b|\bfail(ed|ure)?\b|\bFAILED\b/i;
const GENERIC = [
  /^(g?make|ninja)(\[\d+\])?: \*\*\*/,
  /subprocess-exited-with-error|originates from a subprocess|Encountered error while|metadata-generation-failed/i,
  /Errors while running CTest|A complete log of this run|Command failed with exit code|stopping after \d+ failure/i,
  /^\W*(npm|pnpm|yarn) (error|ERR!)\W*$/i,
  /^[=!\-_*~#\s]+$/,
  /^\s*(at |File ")/,
  /^=+ .* =+$/, // pytest's summary rulers
];
const INSTRUCTION_LIKE =
  /\b(memory|memories|remember|instructions?|ignore (all|any|the|previous)|assistant|agents?|LLM|AI|always|never|from now on|note to)\b/i;

/** Most telling lines of `output` (at most `max`, in their original order, each at most `maxChars`). */
export function errorLines(output: string, max = 2, maxChars = 220): string[] {
  const seen = new Set<string>();
  const scored: Array<{ text: string; score: number; pos: number }> = [];
  const lines = output.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i]!.trim().replace(/\s+/g, ' ');
    if (text.length < 6 || seen.has(text)) continue;
    if (looksLikeInstruction(text)) continue;
    let score = 0;
    if (STRONG.some((re) => re.test(text))) score += 3;
    else if (WEAK.test(text)) score += 1;
    if (score === 0) continue;
    if (GENERIC.some((re) => re.test(text))) score -= 5;
    if (score <= 0) continue;
    seen.add(text);
    // Later lines win ties: the decisive error of a long log comes last.
    scored.push({ text: clipGraphemes(text, maxChars), score, pos: i });
  }
  scored.sort((a, b) => b.score - a.score || Number(b.text.length >= 30) - Number(a.text.length >= 30) || b.pos - a.pos);
  // A second line only when it is as telling as the first and adds something (not `code: 'EAI_AGAIN',`).
  const best = scored[0];
  const distinctive = (t: string) => new Set(t.match(/[A-Za-z_][\w.]{7,}/g) ?? []);
  const bestWords = best ? distinctive(best.text) : new Set<string>();
  const adds = (t: string) => ![...distinctive(t)].some((w) => bestWords.has(w));
  const picked = best ? [best, ...scored.slice(1).filter((s) => s.score >= best.score && s.text.length >= 30 && adds(s.text))] : [];
  return picked
    .slice(0, max)
    .sort((a, b) => a.pos - b.pos)
    .map((s) => s.text);
}

/** Error phrases that name memory as a resource, not as an agent's memory ("JavaScript heap out of memory"). */
const RESOURCE_MEMORY = /\b(out of memory|memory allocation|allocate memory|memory exhausted|memory limit|insufficient memory)\b/gi;

/** True when a text reads like an instruction aimed at an agent or its memory (for filters elsewhere). */
export function looksLikeInstruction(text: string): boolean {
  const t = text.replace(RESOURCE_MEMORY, ' ');
  return INSTRUCTION_LIKE.test(t) || INSTRUCTION_WORDS_WORLD.test(t);
}
