/**
 * Seams that split one secret into parts no rule sees whole: a line break inside a token (a wrapped terminal
 * line), a backslash-newline continuation (`export TOKEN=ab\` ⏎ `cd`), and the same two written as escapes
 * inside a string (`printf 'TOKEN=ab\\\ncd'`, `echo -e "ghp_ab\ncd"`, a serialized JSON line), and adjacent
 * quoted strings the shell or a language joins into one (`'ab''cd'`, `"ab"'cd'`, `"ab"\ "cd"`, `"ab" + "cd"`).
 *
 * Why the escaped forms: a tool call's input is the command as typed, so the line break that the tool's output
 * shows as a real one is, in the input, the two characters `\n` (and a continuation is `\\\n`). Both are
 * redacted by the same `redact`; without these seams the output lost the token and the input kept it.
 *
 * Each join is made only where it matters: the text joined at the seam redacts something that runs past the
 * seam. Everything else is left exactly as written.
 */

/** Known token prefixes whose continuation on the next line is part of the token. */
const PREFIXES = 'sk-ant-|sk-proj-|sk-|ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|glpat-|xox[abposrce]-|AIza|sk_live_|sk_test_|rk_live_|npm_|hf_|pypi-|hvs\\.|dckr_pat_|AKIA|ASIA|eyJ';
const SPLIT_PREFIX = new RegExp(`(?:${PREFIXES})[A-Za-z0-9_.-]{6,}`);
const STARTS_WITH_PREFIX = new RegExp(`^${SPLIT_PREFIX.source}`);

/**
 * A line break between a token's two parts: a real one (optionally after a `\` continuation) or the escape
 * `\n` (`\r\n`) inside a string, escaped once or more (`\\n` in a serialized JSON line), optionally after
 * escaped backslashes (`\\\n`, printf's continuation). A Windows path (`C:\\new`) can read as a break too; the
 * checks in joinSplitTokens (a known prefix before, a token's run after, not a whole token alone) keep such a
 * join rare and harmless.
 */
const LINE_BREAK = /\\?\r?\n|\\{1,7}(?:r\\{1,7})?n/g;
/** The part after the break: a run of token characters that ends the word. */
const SPLIT_TAIL = /^[ \t]*([A-Za-z0-9_-]{6,})(?=[\s"'`,;)\]}\\]|[.!?:](?:[\s"'`]|$)|$)/;
const HEAD_CHAR = /[A-Za-z0-9_.-]/;

/**
 * A token cut by a line break: `…ghp_abc` at the end of a line (optionally with a `\` continuation) and a run of
 * token characters starting the next line, the break real or an escape (LINE_BREAK). Joins the two parts, so
 * the shape rules see the whole token. Only lines that end in a known prefix's token are touched, and not when
 * that token is whole by itself (`isWholeToken`) or the next line starts a token of its own.
 */
export function joinSplitTokens(text: string, isWholeToken: (head: string) => boolean): string {
  if (!text.includes('\n') && !text.includes('\\')) return text;
  // A token folded over three lines or more (`fold -w 10`): each pass joins one more line to a head still short.
  let out = text;
  for (let pass = 0; pass < 6; pass += 1) {
    const next = joinOnce(out, isWholeToken);
    if (next === out) break;
    out = next;
  }
  return out;
}

/**
 * Total lengths (characters, prefix included) of tokens whose issuer fixes them: GitHub's classic tokens (40) and
 * fine-grained ones (93), AWS key ids (20), GitLab (26), npm (40), Hugging Face (37), Anthropic API keys (108).
 */
const FIXED_LENGTH: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gh[pousr]_/, 40], [/^github_pat_/, 93], [/^(?:AKIA|ASIA)/, 20], [/^glpat-/, 26], [/^npm_/, 40], [/^hf_/, 37], [/^sk-ant-api\d\d-/, 108],
];
/** A known prefix starting a head, with anything after it (a head of `ghp_ab` is still a token's start). */
const HEAD_PREFIX = new RegExp(`^(?:${PREFIXES})`);
/** A break, or two with only blanks between (a blank line between a token's parts). */
const BREAK_AT = /(?:\\?\r?\n|\\{1,7}(?:r\\{1,7})?n)(?:[ \t]*(?:\r?\n|\\{1,7}(?:r\\{1,7})?n))?/y;
/** A part after a break: a run of token characters that ends the word. */
const PART_AT = /[ \t]*([A-Za-z0-9_-]+)(?=[\s"'`,;)\]}\\]|[.!?:](?:[\s"'`]|$)|$)/y;
/** A line that is one high-entropy run (lower, upper and digits, 16 or more): the rest of a token of any length. */
const ENTROPY_LINE = /^(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}$/;

/**
 * Tokens cut where joinSplitTokens does not look (re-trial of trial 21): a head shorter than its prefix's fixed
 * length followed by parts, across blank lines, that make it exactly that length (`token:` ⏎ `ghp_T21sp` ⏎ `litAb…`
 * ⏎ `MnOp…`, or a blank line between two halves); and a head already whole by its shape (`sk-ant-` and 16 more)
 * whose next line is one high-entropy run alone on its line, the token's rest. Nothing else is joined.
 */
export function joinToLength(text: string, isWholeToken: (head: string) => boolean): string {
  if (!text.includes('\n') && !text.includes('\\')) return text;
  const parts: string[] = [];
  let done = 0;
  const breaks = new RegExp(LINE_BREAK.source, 'g');
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    const brk = m.index;
    if (brk < done) continue;
    let start = brk;
    while (start > done && brk - start < 512 && HEAD_CHAR.test(text.charAt(start - 1))) start--;
    const head = text.slice(start, brk);
    const prefix = HEAD_PREFIX.exec(head);
    if (!prefix) continue;
    const length = FIXED_LENGTH.find(([re]) => re.test(head))?.[1];
    // A bare prefix at a line's end (`ghp_` ⏎ its 36 characters, trial 23 F1) only by the fixed length.
    if (head.length === prefix[0].length && length === undefined) continue;
    let joined = head;
    let end = -1;
    // Parts while the token is short of its fixed length; joined only when they make it exactly that long.
    for (let pos = brk, lines = 0; length !== undefined && lines < 6 && joined.length < length; lines++) {
      BREAK_AT.lastIndex = pos;
      if (!BREAK_AT.exec(text)) break;
      PART_AT.lastIndex = BREAK_AT.lastIndex;
      const part = PART_AT.exec(text);
      if (!part || STARTS_WITH_PREFIX.test(part[1]!) || joined.length + part[1]!.length > length) break;
      joined += part[1]!;
      pos = PART_AT.lastIndex;
      if (joined.length === length) end = pos;
    }
    // Else a head whole by its shape whose next line is one high-entropy run alone on its line (a key of a length
    // not known here, or longer than the one known).
    if (end === -1 && isWholeToken(head)) {
      joined = head;
      BREAK_AT.lastIndex = brk;
      // The line ends at a real break or an escaped one (`\n` inside a quoted string), or where the string closes.
      const line = BREAK_AT.exec(text) ? /^[ \t]*([A-Za-z0-9_-]*)[ \t]*(?=\r?\n|\\+[rn]|["'`]|$)/.exec(text.slice(BREAK_AT.lastIndex, BREAK_AT.lastIndex + 4096)) : null;
      if (line && ENTROPY_LINE.test(line[1]!) && !STARTS_WITH_PREFIX.test(line[1]!)) {
        joined = head + line[1]!;
        end = BREAK_AT.lastIndex + line[0].length;
      }
    }
    if (end === -1 || !isWholeToken(joined)) continue;
    parts.push(text.slice(done, start), joined);
    done = end;
  }
  return done === 0 ? text : parts.join('') + text.slice(done);
}

/**
 * An AWS secret access key (always 40 characters of base64's alphabet) cut over two lines after its label
 * (`AWS secret: wJalr…` ⏎ `/bPxR…`, trial 23 F1: the label's rule took the first line and the rest was kept). The
 * two parts are joined only when they make exactly 40; the label rules then take the whole value.
 */
const AWS_SECRET_CUT = /((?:aws[_ -]?)?secret[_ -]?(?:access[_ -]?)?key|aws[_ -]?secret)([ \t]*[:=][ \t]*["']?)([A-Za-z0-9/+]{8,39})(\\?\r?\n|\\{1,7}(?:r\\{1,7})?n)[ \t]*([A-Za-z0-9/+]{1,32})(?![A-Za-z0-9/+=])/gi;

/** `text` with each AWS secret access key cut over two lines after its label joined (AWS_SECRET_CUT). Pure. */
export function joinAwsSecret(text: string): string {
  if (!/secret/i.test(text)) return text;
  return text.replace(AWS_SECRET_CUT, (m, label: string, sep: string, head: string, _brk: string, tail: string) =>
    head.length + tail.length === 40 ? `${label}${sep}${head}${tail}` : m,
  );
}

/** One pass of joinSplitTokens: each break after a known prefix's head joined to the run after it. */
function joinOnce(text: string, isWholeToken: (head: string) => boolean): string {
  // Found from each break backwards rather than by one regex that starts with the head's run: that tried every
  // position of every long word, and JSON lines are full of `\n` escapes.
  const parts: string[] = [];
  let done = 0;
  LINE_BREAK.lastIndex = 0;
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) {
    const at = m.index;
    let start = at;
    while (start > done && at - start < 512 && HEAD_CHAR.test(text.charAt(start - 1))) start--;
    if (at - start < 8) continue;
    const head = text.slice(start, at);
    if (!SPLIT_PREFIX.test(head) || /\[REDACTED/.test(head)) continue;
    const end = at + m[0].length;
    const after = SPLIT_TAIL.exec(text.slice(end, end + 4096));
    if (!after) continue;
    const tail = after[1]!;
    // A next line that starts a token of its own is not a continuation (two keys listed one a line).
    if (STARTS_WITH_PREFIX.test(tail) || /^(?:rk|sk|pk)_/.test(tail) || isWholeToken(head)) continue;
    parts.push(text.slice(done, start), head + tail);
    done = end + after[0].length;
    LINE_BREAK.lastIndex = done;
  }
  return done === 0 ? text : parts.join('') + text.slice(done);
}

/**
 * The seams of joinContinuations, each alternative a group: 1 a real continuation; 2 a continuation written as
 * escapes (`\\\n`: an escaped backslash, then an escaped newline; six or seven backslashes when that text was
 * escaped again, as in a serialized JSON line of a tool call); 3–4 the quotes (`\"` in a JSON string) of two
 * adjacent quoted strings, with nothing, an escaped blank or a continuation between them, or `+` or `.` (code's
 * concatenation: `+` across lines too, `.` across lines only after a blank, as `"ab" .` ⏎ `"cd"` is written; a
 * sentence that ends in a quote and a full stop, with the next line starting with a quote, is prose, and joining
 * it changed the text).
 */
const SEAM = /(\\\r?\n)|(\\\\\\(?:\\\\\\\\?)?(?:r\\)?n)|('|"|\\")(?:\\ |[ \t]*(?:\\\r?\n|\\\\\\n)?[ \t]*|\s*\+\s*|[ \t]*\.[ \t]*|[ \t]+\.\s*)('|"|\\")/g;
const MARKER_END = /\[REDACTED:[a-z_]+\]$/;
const MARKER_END_QUOTED = /\[REDACTED:[a-z_]+\]["']?$/;
/** How far back from a seam the line is read for the check (characters): bounds the work on long lines. */
const LINE_WINDOW = 4096;

/**
 * A word continued past a seam (SEAM): the shell joins `\` ⏎ into one word, printf and `echo -e` turn `\\\n` into
 * one, and `'ab''cd'` is the word `abcd`; so the rules must see the parts joined, whatever the value's shape
 * (joinSplitTokens covers only provider tokens across a plain line break). A seam is joined when the line,
 * joined, has its secret end past the seam: `redactLine(line + tail)` no longer ends with the tail. An indented
 * tail after a continuation is a word of its own to the shell (`--rm \` ⏎ `  -v x:y`), so it is joined only when
 * the head alone was not already redacted: then the split hid the secret (a wrapped token). Two quoted strings
 * of different quotes are joined into the first one's quotes (`'ab'"cd"` → `'abcd'`), so the value stays one
 * quoted string. Everything else is left as written.
 */
export function joinContinuations(text: string, redactLine: (line: string) => string): string {
  // Found from each seam outwards rather than by one regex over the text: a regex that starts with a run of
  // word characters tries every position of every long line.
  if (!text.includes('\\') && !text.includes("'") && !text.includes('"')) return text;
  const parts: string[] = [];
  let done = 0;
  SEAM.lastIndex = 0;
  for (let m = SEAM.exec(text); m !== null; m = SEAM.exec(text)) {
    const at = m.index;
    const seamEnd = at + m[0].length;
    // `\\\\\n`: the backslash before is escaped itself, so this is no continuation.
    if (m[2] !== undefined && text.charAt(at - 1) === '\\') continue;
    const quoted = m[3] !== undefined;
    // Quotes join only a word inside them to a word inside the next: both sides are token characters.
    if (quoted && !(/[A-Za-z0-9_+/=.-]/.test(text.charAt(at - 1)) && /[A-Za-z0-9_-]/.test(text.charAt(seamEnd)))) {
      SEAM.lastIndex = at + 1;
      continue;
    }
    let start = at;
    const floor = Math.max(done, at - LINE_WINDOW);
    while (start > floor && !/[\s\\]/.test(text.charAt(start - 1))) start--;
    const after = (quoted ? /^()([^\s"'`;|&)<>\\]+)/ : /^([ \t]*)([^\s"'`;|&)<>\\]+)/).exec(text.slice(seamEnd, seamEnd + 4096));
    if (start === at || !after) continue;
    const [, indent, tail] = after as unknown as [string, string, string];
    const head = text.slice(start, at);
    if (MARKER_END.test(head)) continue;
    const line = text.slice(Math.max(text.lastIndexOf('\n', start) + 1, at - LINE_WINDOW), at);
    // A quoted value is checked closed, as it will read once joined (`PASSWORD='abc''def'` → `'abcdef'`).
    const close = quoted ? m[3]! : '';
    if (redactLine(line + tail + close).endsWith(tail + close)) {
      if (quoted) SEAM.lastIndex = at + 1;
      continue;
    }
    if (indent !== '' && MARKER_END_QUOTED.test(redactLine(line))) continue;
    parts.push(text.slice(done, start), head + tail);
    done = seamEnd + indent.length + tail.length;
    // Mixed quotes: the second string's closing quote becomes the first one's.
    if (quoted && m[3] !== m[4] && text.startsWith(m[4]!, done)) {
      parts.push(m[3]!);
      done += m[4]!.length;
    }
    SEAM.lastIndex = done;
  }
  return done === 0 ? text : parts.join('') + text.slice(done);
}
