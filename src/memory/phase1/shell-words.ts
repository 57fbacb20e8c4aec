/**
 * A small POSIX-shell word tokenizer for the commands an agent typed into its `bash` tool: enough of the
 * shell grammar (quotes, escapes, `$( )`, backticks, operators, redirections, here-documents, comments)
 * to tell which program a command runs and with which words, without regexes over the raw string.
 * It never executes or expands anything; `$VAR` stays as written. Unterminated quotes run to the end.
 *
 * Why not `shell-quote`: it drops source positions (needed to show a command as the agent typed it) and
 * does not skip here-document bodies (a `cat > f <<EOF … npm test … EOF` would read as a test run).
 */

/** A word (quotes removed in `value`) or an operator; `raw` is the source text, `start`/`end` its offsets. */
export interface ShellToken {
  kind: 'word' | 'op' | 'redirect';
  /** Words: the text with quotes and escapes removed. Operators: the operator. Redirects: the target. */
  value: string;
  /** Redirects: the operator (`>`, `2>&1`, `&>`, `<<` …). */
  op?: string;
  raw: string;
  start: number;
  end: number;
}

const CONTROL = ['&&', '||', ';;', '|&', ';', '|', '&', '\n', '(', ')'];
const REDIRECT = /^(\d*)(>>|>&|<<<|<<-|<<|<>|<&|>\||>|<)|^&>>?/;

/** How `tokenize` reads a command. */
export interface TokenizeOptions {
  /**
   * Keep every backslash in word values as written (`net use \\srv\share`, a cmd.exe command, and `"a\"b"`
   * stays `a\"b`); a backslash still keeps the next character from ending a word or a double-quoted string.
   * For callers that put a value back into the text (redaction) or read commands that are not POSIX shell.
   * Default false: the shell's meaning (`a\ b` is `a b`).
   */
  literalBackslashes?: boolean;
}

/** Tokens of `command` in order. Here-document bodies and comments are skipped. */
export function tokenize(command: string, options: TokenizeOptions = {}): ShellToken[] {
  const literal = options.literalBackslashes === true;
  const out: ShellToken[] = [];
  const heredocs: Array<{ delim: string; strip: boolean }> = [];
  let i = 0;
  const n = command.length;
  while (i < n) {
    const c = command[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i += 1;
      continue;
    }
    if (c === '\\' && command[i + 1] === '\n') {
      i += 2; // line continuation
      continue;
    }
    if (c === '#') {
      while (i < n && command[i] !== '\n') i += 1;
      continue;
    }
    if (c === '\n' && heredocs.length > 0) {
      out.push({ kind: 'op', value: '\n', raw: '\n', start: i, end: i + 1 });
      i = skipHeredocs(command, i + 1, heredocs.splice(0));
      continue;
    }
    const redir = REDIRECT.exec(command.slice(i, i + 6));
    if (redir) {
      const op = redir[0];
      let j = i + op.length;
      // `2>&1`, `>&2`: the target is a descriptor glued to the operator.
      const fd = /^\d+|^-/.exec(command.slice(j));
      if (op.endsWith('&') && fd) {
        j += fd[0].length;
        out.push({ kind: 'redirect', op: op + fd[0], value: fd[0], raw: command.slice(i, j), start: i, end: j });
        i = j;
        continue;
      }
      while (j < n && (command[j] === ' ' || command[j] === '\t')) j += 1;
      const target = readWord(command, j, literal);
      if (op.startsWith('<<') && op !== '<<<') heredocs.push({ delim: target.value, strip: op === '<<-' });
      out.push({ kind: 'redirect', op, value: target.value, raw: command.slice(i, target.end), start: i, end: target.end });
      i = Math.max(target.end, i + op.length);
      continue;
    }
    const ctl = CONTROL.find((o) => command.startsWith(o, i));
    if (ctl) {
      out.push({ kind: 'op', value: ctl, raw: ctl, start: i, end: i + ctl.length });
      i += ctl.length;
      continue;
    }
    const w = readWord(command, i, literal);
    out.push({ kind: 'word', value: w.value, raw: command.slice(i, w.end), start: i, end: w.end });
    i = Math.max(w.end, i + 1);
  }
  return out;
}

/** One word from `start`: quotes removed, `$( )`, `${ }` and backticks kept whole. */
function readWord(s: string, start: number, literal = false): { value: string; end: number } {
  let i = start;
  let value = '';
  while (i < s.length) {
    const c = s[i]!;
    if (/[\s;&|()<>]/.test(c)) break;
    if (c === '\\') {
      value += literal ? s.slice(i, i + 2) : (s[i + 1] ?? '');
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      const end = close === -1 ? s.length : close;
      value += s.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      i += 1;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < s.length) {
          value += !literal && /["\\$`]/.test(s[i + 1]!) ? s[i + 1] : s.slice(i, i + 2);
          i += 2;
          continue;
        }
        if (s.startsWith('$(', i)) {
          const end = balanced(s, i + 1, '(', ')');
          value += s.slice(i, end);
          i = end;
          continue;
        }
        value += s[i];
        i += 1;
      }
      i += 1;
      continue;
    }
    if (s.startsWith('$(', i) || s.startsWith('${', i)) {
      const end = balanced(s, i + 1, s[i + 1]!, s[i + 1] === '(' ? ')' : '}');
      value += s.slice(i, end);
      i = end;
      continue;
    }
    if (c === '`') {
      const close = s.indexOf('`', i + 1);
      const end = close === -1 ? s.length : close + 1;
      value += s.slice(i, end);
      i = end;
      continue;
    }
    value += c;
    i += 1;
  }
  return { value, end: Math.min(i, s.length) };
}

/** The offset after the bracket that closes the one at `open`, quotes respected; the end if unbalanced. */
function balanced(s: string, open: number, left: string, right: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < s.length; i += 1) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === left) depth += 1;
    else if (c === right && --depth === 0) return i + 1;
  }
  return s.length;
}

/** Skips the bodies of pending here-documents from `start` (the line after the operator). */
function skipHeredocs(s: string, start: number, pending: Array<{ delim: string; strip: boolean }>): number {
  let i = start;
  for (const { delim, strip } of pending) {
    for (;;) {
      if (i >= s.length) return s.length;
      const nl = s.indexOf('\n', i);
      const lineEnd = nl === -1 ? s.length : nl;
      const line = s.slice(i, lineEnd);
      i = lineEnd + 1;
      if ((strip ? line.replace(/^\t+/, '') : line) === delim) break;
    }
  }
  return Math.min(i, s.length);
}
