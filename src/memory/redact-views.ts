/**
 * Tokens a terminal or a copy-paste cuts with characters that do not show (issue 10, fifth trial): ANSI escape
 * sequences inside a token (`sk_live_\e[1mKLzd…\e[0m`, grep's colour `\e[01;31m\e[Kghp_\e[m\e[K<rest>`),
 * a zero-width space, joiner or soft hyphen inside one, and a URL-encoded token character (`ghp%5F…`). The
 * token rules run over a view of the text with those removed (percent escapes of token characters decoded),
 * and what they change there is mapped back onto the original characters, as `redact-fragments.ts` does for
 * shell escapes. The same characters written as JSON escapes (`\u001b[1m`, `\u200b`, in a serialized line) or as a
 * shell would read them (`\033[32m`, `\e[1m`, `\x1b[31m`) count. A secret the view shows but that spans none of the removed characters is the plain rules'.
 */

/** What the view drops or decodes: ANSI CSI/OSC sequences, zero-width characters, `%XX` of a token character. */
const HIDDEN = /(?:\u001b|\\{1,2}(?:u001[bB]|033|x1[bB]|e))\[[0-9;?]*[ -/]*[@-~]|\\{1,2}u(?:200[b-dB-D]|2060|[fF][eE][fF][fF]|00[aA][dD])|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[\u200b-\u200d\u2060\ufeff\u00ad]|%(?:2[dD]|5[fF]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA])/g;
/** A cheap test before the view is built: most text has none of these. */
const ANY_HIDDEN = /\u001b|[\u200b-\u200d\u2060\ufeff\u00ad]|%[2-7][0-9a-fA-F]|\\u(?:001|200|2060|feff|00ad)|\\(?:033|x1b|e)\[/i;

/**
 * `text` with every hidden cut of a secret replaced by what `redactView` makes of the view. `redactView` is the
 * token rules (pure); each changed region of the view is mapped back to the original span it came from.
 */
export function redactHidden(text: string, redactView: (view: string) => string): string {
  if (!ANY_HIDDEN.test(text)) return text;
  let view = '';
  // For each view character, the original span [from, to) it stands for.
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  let hidden = false;
  // A sequence with no token character before it (`printf '\033[32mghp_…'`) belongs to the character after it,
  // so that a token right behind a colour code counts as cut by it.
  let carry: number | undefined;
  const keep = (end: number): void => {
    for (; at < end; at++) {
      view += text.charAt(at);
      from.push(carry ?? at);
      to.push(at + 1);
      carry = undefined;
    }
  };
  HIDDEN.lastIndex = 0;
  for (let m = HIDDEN.exec(text); m !== null; m = HIDDEN.exec(text)) {
    keep(m.index);
    const end = m.index + m[0].length;
    if (m[0].startsWith('%')) {
      view += String.fromCharCode(parseInt(m[0].slice(1), 16));
      from.push(m.index);
      to.push(end);
    } else if (from.length && /[A-Za-z0-9_-]/.test(view.charAt(view.length - 1))) {
      // Dropped: it belongs to the character before it, so a cut ending in it is replaced with it.
      to[to.length - 1] = end;
    } else carry ??= m.index;
    hidden = true;
    at = end;
  }
  keep(text.length);
  if (!hidden) return text;
  const redacted = redactView(view);
  if (redacted === view) return text;
  return mapBack(text, view, redacted, from, to);
}

/**
 * Replaces, in `text`, each region where `redacted` differs from `view` (found by walking both from the
 * markers `[REDACTED:…]` the rules put in) by the redacted region, when that region hid something (its original
 * span is longer than its view, or a percent escape was decoded in it). Regions that hid nothing are left as they are.
 */
function mapBack(text: string, view: string, redacted: string, from: number[], to: number[]): string {
  const parts: string[] = [];
  let done = 0;
  let v = 0; // position in view
  let r = 0; // position in redacted
  const MARK = /\[REDACTED:[a-z_]+\]/g;
  for (let m = MARK.exec(redacted); m !== null; m = MARK.exec(redacted)) {
    // Everything before the marker is the view unchanged (a rule replaces whole matches by one marker).
    const same = m.index - r;
    v += same;
    r = m.index + m[0].length;
    // The marker stands for the view's characters up to where the view and redacted agree again.
    // (only up to the next marker, which stands for other view characters).
    const next = redacted.indexOf('[REDACTED:', r);
    const tail = redacted.slice(r, Math.min(r + 16, next < 0 ? redacted.length : next));
    if (view.startsWith(m[0], v)) {
      v += m[0].length; // a marker that was already there
      continue;
    }
    let end = v;
    if (tail === '' && next === r) continue; // two markers side by side: which characters each took is unknown
    if (tail === '') end = view.length;
    else while (end < view.length && !view.startsWith(tail, end)) end++;
    if (end <= v) continue;
    const start = from[v]!;
    const stop = to[end - 1]!;
    const hid = stop - start !== end - v || text.slice(start, stop) !== view.slice(v, end);
    if (hid) {
      parts.push(text.slice(done, start), m[0]);
      done = stop;
    }
    v = end;
  }
  return done === 0 ? text : parts.join('') + text.slice(done);
}
