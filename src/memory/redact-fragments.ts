/**
 * Secrets a command hides from the token shapes by how it writes them (issue 10, item 8, fourth trial), in a
 * tool call's input (the command as typed) as much as in its output:
 * - shell escapes inside a word or string: `printf '\x67hp_…'`, `echo $'\x67\x68p_…'`, octal `\147`, `\u0067`,
 *   and a backslash that quote removal drops (`ghp_ab\cd…` is the word `ghp_abcd…`). A copy of each escaped run
 *   is decoded (as the base64 rule decodes an encoded value) and, when the copy holds a secret, the escaped span
 *   in the original is replaced.
 * - a known-prefix token cut into parts the shell joins later: `A=ghp_ab12; B=cd34…; echo $A$B`,
 *   `printf '%s%s' ghp_ab12 cd34…`, `printf 'ghp_ab12' > f; printf 'cd34…' >> f`. A word that starts with a
 *   high-confidence prefix and holds a few random token characters is a fragment of a secret even when shorter
 *   than a whole token; the words the command joins it with (later arguments of the same command, the variable
 *   expanded right after it, later appends to the same file) are its rest when they look like token characters.
 *
 * Look-alikes stay: prose naming a prefix (`tokens start with ghp_`), placeholders (`ghp_xxxxxxxx`, `ghp_XXXX`),
 * snake_case names (`npm_config_cache`, `hf_hub_download`), ordinary words after a fragment.
 */

import type { SecretKind } from './redact.js';
import { rememberFragmentFile } from './redact-remember.js';

/**
 * An escape inside a shell word or string (once or twice escaped, as in a serialized JSON line). Octal needs
 * three digits or a leading 0 (`\147`, `\0147`): a bare word's `\6` is the digit 6 after quote removal.
 */
const ESCAPE = /\\{1,3}(?:x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|0?[0-7]{3}|0[0-7]{1,2}|[A-Za-z0-9_-])/y;
/** A character of a run of token characters (`.` too: `hvs.`, `SG.`) and backslashes: the candidate spans. */
const RUN_CHAR = /[A-Za-z0-9_.\\-]/;
/** C escapes that `$'…'`, printf and `echo -e` turn into control characters: a boundary in the decoded copy. */
const CONTROL = new Set(['a', 'b', 'e', 'f', 'n', 'r', 't', 'v']);

/** The decoded copy of `run` and, for each decoded character, the original span `[start, end)` it came from. */
function decodeRun(run: string): { decoded: string; from: number[]; to: number[]; joins: boolean } {
  let decoded = '';
  let joins = false;
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < run.length; ) {
    ESCAPE.lastIndex = i;
    const m = run.charAt(i) === '\\' ? ESCAPE.exec(run) : null;
    if (!m) {
      decoded += run.charAt(i) === '\\' ? ' ' : run.charAt(i);
      from.push(i);
      to.push(i + 1);
      i++;
      continue;
    }
    const body = m[0].replace(/^\\+/, '');
    let ch: string;
    const code = body.length > 1 && /^[xuU]/.test(body) ? parseInt(body.slice(1), 16) : /^[0-7]{2,4}$/.test(body) ? parseInt(body, 8) & 0xff : -1;
    if (code >= 0) ch = code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
    else ch = CONTROL.has(body) ? ' ' : body; // `\c` → `c` (quote removal); `\n` ends the word
    if (ch !== ' ') joins = true;
    decoded += ch;
    from.push(i);
    to.push(i + m[0].length);
    i += m[0].length;
  }
  return { decoded, from, to, joins };
}

/**
 * Replaces each escaped span of `text` whose decoded copy holds a secret. `redactDecoded(copy)` is the token
 * rules over the decoded copy; the part it changed, mapped back to the original characters it came from, is
 * replaced by what it became. Runs without a backslash are left to the other rules.
 */
export function redactEscapes(text: string, redactDecoded: (decoded: string) => string): string {
  // From each backslash outwards: a regex over every word of the text cost a callback per word.
  const parts: string[] = [];
  let done = 0;
  for (let at = text.indexOf('\\'); at >= 0; at = text.indexOf('\\', at)) {
    let start = at;
    while (start > done && RUN_CHAR.test(text.charAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && RUN_CHAR.test(text.charAt(end))) end++;
    at = end;
    const run = text.slice(start, end);
    const replaced = redactRun(run, redactDecoded);
    if (replaced !== run) {
      parts.push(text.slice(done, start), replaced);
      done = end;
    }
  }
  return done === 0 ? text : parts.join('') + text.slice(done);
}

/** One run of token characters and backslashes, its escaped secret replaced (see redactEscapes). */
function redactRun(run: string, redactDecoded: (decoded: string) => string): string {
  if (run.length < 10) return run;
  const { decoded, from, to, joins } = decodeRun(run);
  // Escapes that only end words (`\n`, `\t`, a JSON line's `\"`) hide nothing the plain rules miss.
  if (!joins) return run;
  const redacted = redactDecoded(decoded);
  if (redacted === decoded) return run;
  let pre = 0;
  while (pre < decoded.length && decoded[pre] === redacted[pre]) pre++;
  let suf = 0;
  while (suf < decoded.length - pre && decoded[decoded.length - 1 - suf] === redacted[redacted.length - 1 - suf]) suf++;
  const start = from[pre]!;
  const end = to[decoded.length - 1 - suf]!;
  // Only a secret the escapes hid: one that spans no escape is the plain rules' (and reads the same there).
  if (end - start === decoded.length - pre - suf) return run;
  return run.slice(0, start) + redacted.slice(pre, redacted.length - suf) + run.slice(end);
}

/** High-confidence token prefixes, the token's own characters, and the kind of its marker. */
const FRAGMENT_PREFIXES: Array<[RegExp, SecretKind]> = [
  [/^(?:ghp|gho|ghs|ghu|ghr)_([A-Za-z0-9]+)$/, 'github_token'],
  [/^github_pat_([A-Za-z0-9_]+)$/, 'github_token'],
  [/^glpat-([A-Za-z0-9_-]+)$/, 'gitlab_token'],
  [/^xox[abpr]-([A-Za-z0-9-]+)$/, 'slack_token'],
  [/^sk-ant-(?:api\d\d-|admin\d\d-)?([A-Za-z0-9_-]+)$/, 'anthropic_key'],
  [/^sk-proj-([A-Za-z0-9_-]+)$/, 'openai_key'],
  [/^(?:sk|rk)_(?:live|test)_([A-Za-z0-9]+)$/, 'stripe_key'],
  [/^npm_([A-Za-z0-9]+)$/, 'npm_token'],
  [/^hf_([A-Za-z0-9]+)$/, 'huggingface_token'],
  [/^dckr_pat_([A-Za-z0-9_-]+)$/, 'docker_hub_token'],
  [/^AIza([0-9A-Za-z_-]+)$/, 'google_api_key'],
];
/** AWS key ids: `AKIA` + upper case and digits (`AKIATOPM`); `ASIA` only with a digit (not `ASIAPACIFIC`). */
const AWS_FRAGMENT = /^(?:AKIA[A-Z0-9]{4,15}|ASIA(?=[A-Z]*[0-9])[A-Z0-9]{4,15})$/;

/** Whether `body` is random token characters, not a word, name or placeholder. */
function isRandomBody(body: string, min = 6): boolean {
  if (body.length < min || /^(.)\1*$/i.test(body) || /^(?:x+|X+|0+|1234\w*|abc\w*)$/.test(body)) return false;
  // Random letters, not words: `model2`, `Token`, `HubDownload` are code's names (`hf_model2`).
  const words = body.match(/[A-Z]?[a-z]{3,}/g) ?? [];
  if (words.join('').length * 2 >= body.length) return false;
  // Letters and digits, or mixed case without digits (`eKOmXR`).
  return /[A-Za-z]/.test(body) && (/[0-9]/.test(body) || (/[a-z]/.test(body) && /[A-Z]/.test(body)));
}

/** The kind of secret a word is a fragment of, or null: a known prefix and a random body of 6+ characters. */
export function fragmentKind(word: string): SecretKind | null {
  if (AWS_FRAGMENT.test(word)) return /EXAMPLE/.test(word) ? null : 'aws_access_key_id';
  for (const [re, kind] of FRAGMENT_PREFIXES) {
    const m = re.exec(word);
    if (m) return isRandomBody(m[1]!) ? kind : null;
  }
  return null;
}

/** Whether a word the command joins with a fragment looks like the token's rest: 6+ random token characters. */
function isTokenRest(word: string): boolean {
  return /^[A-Za-z0-9_.-]{6,}$/.test(word) && isRandomBody(word.replace(/[_.-]/g, ''));
}

/**
 * A bare or quoted word (quotes kept outside the captured text), as typed in a command. A path is one word
 * (`> /tmp/t`, `>> ~/k.txt`): read as its last segment, a file the fragment went to was never found again.
 */
const WORD = /(["']?)([A-Za-z0-9_.\/~+-]+)\1(?=$|[\s;&|)<>"'])/g;
/** Where a fragment can start: found first, so that only the text around one is read further. */
const FRAGMENT_START = /gh[pousr]_|github_pat_|glpat-|xox[abpr]-|sk-ant-|sk-proj-|[sr]k_(?:live|test)_|npm_|hf_|dckr_pat_|AIza|AKIA|ASIA/g;
const WORD_CHAR = /[A-Za-z0-9_.-]/;
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Cut {
  start: number;
  end: number;
  kind: SecretKind;
}

/** The words of `text` between `from` and `to`, with their offsets in `text`. */
function wordsIn(text: string, from: number, to: number): Array<{ start: number; end: number; text: string }> {
  return [...text.slice(from, to).matchAll(WORD)].map((m) => {
    const start = from + m.index! + m[1]!.length;
    return { start, end: start + m[2]!.length, text: m[2]! };
  });
}

/** The end of the shell command that holds offset `at`: the next line break, `;`, `&` or `|`. */
function commandEnd(text: string, at: number): number {
  const m = /[\n;&|]/.exec(text.slice(at, at + 4096));
  return m ? at + m.index : Math.min(text.length, at + 4096);
}

/**
 * Replaces fragments of known-prefix tokens and the parts the command joins them with (see the module comment)
 * by `marker(kind)`. Pure.
 */
export function redactFragments(text: string, marker: (kind: SecretKind) => string): string {
  const cuts: Cut[] = [];
  FRAGMENT_START.lastIndex = 0;
  for (let m = FRAGMENT_START.exec(text); m !== null; m = FRAGMENT_START.exec(text)) {
    const start = m.index;
    if (start > 0 && WORD_CHAR.test(text.charAt(start - 1))) continue;
    let end = start + m[0].length;
    while (end < text.length && WORD_CHAR.test(text.charAt(end))) end++;
    FRAGMENT_START.lastIndex = end;
    if (end < text.length && !/[\s;&|)<>"']/.test(text.charAt(end))) continue;
    const kind = fragmentKind(text.slice(start, end));
    if (kind) {
      fragmentCuts(text, start, end, kind, cuts);
      printedNextCuts(text, start, end, kind, cuts);
    }
  }
  // A head long enough to be a whole token by its shape (`sk_live_` + 10) was replaced before this pass; the
  // parts appended after it to the same file (`echo -n sk_live_4eC3… > k && echo -n jWDa… >> k`) are still its rest.
  for (const m of text.matchAll(SHAPED_HEAD)) {
    const end = m.index + m[0].length;
    if (text.slice(end, end + 4096).includes('>>')) fragmentCuts(text, m.index, end, m[1] as SecretKind, cuts, true);
    printedNextCuts(text, m.index, end, m[1] as SecretKind, cuts);
  }
  return applyCuts(text, cuts, marker);
}

/**
 * A fragment printed by `echo`/`printf` and the next command printing more (`echo 'ghp_ab…'; echo 'cd…'`): the
 * two are consecutive lines of output, a token split over two lines (trial 21): the next one's token-like words
 * are its rest.
 */
function printedNextCuts(text: string, start: number, end: number, kind: SecretKind, cuts: Cut[]): void {
  if (!/(?:^|[;&|\n]\s*)(?:echo|printf)\b[^;&|\n>]*$/.test(text.slice(Math.max(0, start - 256), start))) return;
  const after = commandEnd(text, end);
  if (/>/.test(text.slice(end, after))) return; // it went to a file: the appends rule reads those
  const next = /^[;&|\s]*(?:echo|printf)\b/.exec(text.slice(after, after + 64));
  if (!next) return;
  const from = after + next[0].length;
  for (const w of wordsIn(text, from, commandEnd(text, from))) if (isTokenRest(w.text)) cuts.push({ start: w.start, end: w.end, kind });
}

/** `text` with each cut replaced by its kind's marker (of overlapping cuts, the later one wins). */
function applyCuts(text: string, cuts: Cut[], marker: (kind: SecretKind) => string): string {
  if (cuts.length === 0) return text;
  cuts.sort((a, b) => b.start - a.start);
  let out = text;
  let floor = Infinity;
  for (const c of cuts) {
    if (c.end > floor) continue;
    out = out.slice(0, c.start) + marker(c.kind) + out.slice(c.end);
    floor = c.start;
  }
  return out;
}

/** A marker of a kind FRAGMENT_PREFIXES knows, written by the shape rules before the fragments are read. */
const SHAPED_HEAD = new RegExp(`\\[REDACTED:(${[...new Set(FRAGMENT_PREFIXES.map(([, k]) => k)), 'aws_access_key_id'].join('|')})\\]`, 'g');

/**
 * The cuts for one fragment at `[start, end)`: itself, and the parts the command joins it with. `appendsOnly`:
 * only the later appends to a file it went to (the fragment is a marker already, a whole token by its shape).
 */
function fragmentCuts(text: string, start: number, end: number, kind: SecretKind, cuts: Cut[], appendsOnly = false): void {
  if (!appendsOnly) cuts.push({ start, end, kind });
  const rest = (w: { start: number; end: number; text: string }): void => {
    if (isTokenRest(w.text)) cuts.push({ start: w.start, end: w.end, kind });
  };
  // The rest of the same command: later token-like arguments, and a file it writes.
  const files: string[] = [];
  for (const w of wordsIn(text, end, commandEnd(text, end))) {
    if (/>\s*["']?$/.test(text.slice(Math.max(0, w.start - 4), w.start))) files.push(w.text);
    else if (!appendsOnly) rest(w);
  }
  if (appendsOnly && files.length === 0) return;
  // A variable assigned the fragment: the next assignment on the line (`K1=AKIATOPM; K2=KMY6…`) and the variable
  // expanded right after it (`$A$B`, `${A}${B}`) hold the rest.
  const name = appendsOnly ? undefined : /([A-Za-z_][A-Za-z0-9_]*)=["']?$/.exec(text.slice(Math.max(0, start - 64), start))?.[1];
  if (name !== undefined) {
    const next = /^["']?[ \t;&]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=(["']?)([A-Za-z0-9_.-]+)\1/.exec(text.slice(end, end + 256));
    if (next) {
      const at = end + next[0].length - next[1]!.length - next[2]!.length;
      rest({ start: at, end: at + next[2]!.length, text: next[2]! });
    }
    for (const e of text.matchAll(new RegExp(`\\$\\{?${escapeRe(name)}\\}?\\$\\{?([A-Za-z_][A-Za-z0-9_]*)\\}?`, 'g'))) {
      for (const a of text.matchAll(new RegExp(`(?<![A-Za-z0-9_$])${escapeRe(e[1]!)}=(["']?)([A-Za-z0-9_.-]+)\\1`, 'g'))) {
        const at = a.index! + e[1]!.length + 1 + a[1]!.length;
        rest({ start: at, end: at + a[2]!.length, text: a[2]! });
      }
    }
  }
  // Later appends to a file the fragment went to: their token-like arguments are its rest. A later part of the
  // same transcript may append too (another tool call): the file is remembered for it.
  for (const file of files) {
    rememberFragmentFile(file, kind);
    appendCuts(text, end, file, kind, cuts);
  }
}

/** The cuts of the token-like words each `>> file` after offset `from` appends (its command's words before it). */
function appendCuts(text: string, from: number, file: string, kind: SecretKind, cuts: Cut[]): void {
  for (const a of text.slice(from).matchAll(new RegExp(`>>\\s*["']?${escapeRe(file)}(?![A-Za-z0-9_.-])`, 'g'))) {
    const at = from + a.index!;
    const start = Math.max(from, ...['\n', ';', '&', '|'].map((c) => text.lastIndexOf(c, at) + 1));
    for (const w of wordsIn(text, start, at)) if (isTokenRest(w.text)) cuts.push({ start: w.start, end: w.end, kind });
  }
}

/**
 * `text` (a later part of a transcript) with the token-like words appended to `files` replaced by their kind's
 * marker: files an earlier part wrote a token fragment to (`rememberFragmentFile`). Pure.
 */
export function redactAppendsTo(text: string, files: Map<string, SecretKind>, marker: (kind: SecretKind) => string): string {
  if (files.size === 0 || !text.includes('>>')) return text;
  const cuts: Cut[] = [];
  for (const [file, kind] of files) if (text.includes(file)) appendCuts(text, 0, file, kind, cuts);
  return applyCuts(text, cuts, marker);
}
