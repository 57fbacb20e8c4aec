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
const SPLIT_PREFIX = /(?:sk-ant-|sk-proj-|sk-|ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|glpat-|xox[abposrce]-|AIza|sk_live_|sk_test_|rk_live_|npm_|hf_|pypi-|hvs\.|dckr_pat_|AKIA|ASIA|eyJ)[A-Za-z0-9_.-]{6,}/;
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
