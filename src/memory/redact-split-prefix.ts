/**
 * A provider token written as its bare prefix and its body apart (new-user trial 24): the prefix alone at a line's
 * end and the body on the next line (`xoxb-` ⏎ `1234…`), or prose that spells the split out ("the staging token is
 * split as ghp_ plus Z234…", "prefix sk_live_ then 51H8…", "token: ghp_ + Z234…", "ghp_ Z234…"). No shape rule
 * sees a token there: the prefix alone is too short and the body has no prefix.
 *
 * The judge is the token shapes themselves (`shapeMarker` of redact.ts over prefix + body), so each prefix's body
 * charset and minimum length come from its own rule; the body must also hold a digit (prose after a prefix is
 * words). The body is replaced; the prefix, the connector and the prose around them stay.
 */
import { remember } from './redact-remember.js';

/** Bare prefixes of the known-token rules, longest first where one starts another (`sk-ant-` before `sk-`). */
const PREFIXES = [
  'github_pat_', 'gh[pousr]_', 'sk-ant-(?:api\\d\\d-|admin\\d\\d-)?', 'sk-(?:proj|svcacct|admin)-', 'sk-', 'xox[abposrce]-',
  '[sr]k_(?:live|test)_', 'whsec_', 'gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|oas|agent|ffct)-', 'npm_', 'hf_', 'pypi-', 'AIza',
  'hv[sbr]\\.', 'dckr_pat_', 'AKIA', 'ASIA', 'gsk_', 'lin_api_', 'figd_', 'sbp_', 'r8_', 'pplx-', 'xai-', 'dop_v1_',
  'shp(?:at|ss|ca|pa)_', 'glsa_', 'glc_', 'rzp_(?:live|test)_', 'AGE-SECRET-KEY-1', 'dapi', 'PMAK-', 'NRAK-', 'pul-',
];

/**
 * Words and signs that join the two parts in prose: English, and the languages the prose rules know ("più",
 * "más", "mais", "und", "puis", "dann", "poi", "luego").
 */
const CONNECTORS = [
  'plus', 'then', 'and then', 'and', 'followed by', 'with', 'and the rest', 'then the rest', 'and after it',
  'più', 'poi', 'seguito da', 'e poi', 'e', 'más', 'luego', 'seguido de', 'y', 'y luego', 'mais', 'mas', 'depois', 'e depois',
  'suivi de', 'puis', 'et', 'et puis', 'und', 'dann', 'gefolgt von', 'und dann', 'en', 'dan', 'potem', 'i', 'а затем', 'и', 'затем', 'плюс',
];
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A line break, real or escaped in a string (`\n`, `\\n`), with a blank line between allowed. */
const BREAK = '(?:\\\\?\\r?\\n|\\\\{1,7}(?:r\\\\{1,7})?n)(?:[ \\t]*(?:\\r?\\n|\\\\{1,7}(?:r\\\\{1,7})?n))?';
/** What stands between the parts: a break, a sign, a connector word, or blanks only. */
const WORDS = CONNECTORS.sort((a, b) => b.length - a.length).map(escape).join('|');
/**
 * A connector word may stand in brackets ("ghp_ (then) Z234…", "[and]") and come after a sign's blank ("— then —"):
 * how people set the word apart is not part of what it says.
 */
const SEP = `(?:[ \\t]*${BREAK}[ \\t]*|[ \\t]*(?:\\+|&|,|:|->|→|…|\\.\\.\\.|—|–|--?)[ \\t]*|(?:[ \\t]+|(?<=[ \\t]))(?:\\((?:${WORDS})\\)|\\[(?:${WORDS})\\]|(?:${WORDS}))[ \\t]*[:,]?[ \\t]+|[ \\t]+)`;
/** "… plus the body Z234…", "then the rest: Z234…": words naming the second part, allowed after the connector. */
const PART_WORDS = '(?:(?:the|its|a)[ \\t]+)?(?:rest|body|remainder|suffix|second part|secret part)(?:[ \\t]+is)?[ \\t]*:?[ \\t]*';

/**
 * Group 1 the prefix, 2 its closing quote, 3 the separator (the word "prefix" or "part" allowed first, and up to
 * three separators: "ghp_ part, then the rest: …", "ghp_ — then — …"), 4 the body's opening quote or bracket
 * ("AKIA plus <7QXN…>"), 5 the body.
 */
const SPLIT = new RegExp(`(?<![A-Za-z0-9])(${PREFIXES.join('|')})([\`"'*]*)((?:[ \\t]+(?:prefix|part|head))?${SEP}(?:${SEP}){0,2}(?:${PART_WORDS})?)([\`"'*<([]*)([A-Za-z0-9_-]{8,200})(?![A-Za-z0-9_-])`, 'g');
/** A body that begins a token of its own (two tokens listed one after the other) is no body. */
const OWN_PREFIX = new RegExp(`^(?:${PREFIXES.join('|')})`);

/**
 * `text` with the body of each token written apart from its bare prefix replaced by the marker `shapeMarker`
 * gives the whole token (null: prefix + body is no token, so nothing is replaced). Replaced bodies are passed to
 * `remember`. Pure otherwise; idempotent (a marker is no body).
 */
export function redactSplitPrefixes(text: string, shapeMarker: (token: string) => string | null): string {
  return text.replace(SPLIT, (m, prefix: string, q1: string, sep: string, q2: string, body: string) => {
    // A prefix followed straight by its body is a whole token, for the shape rules.
    if (sep === '' || OWN_PREFIX.test(body) || !/[0-9]/.test(body)) return m;
    const marker = shapeMarker(prefix + body);
    if (marker === null) return m;
    remember(body);
    return `${prefix}${q1}${sep}${q2}${marker}`;
  });
}
