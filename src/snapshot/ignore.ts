/**
 * Compiles ignore patterns into one matcher over `/`-separated relative paths. A pattern is a path of
 * segments where `*` matches within one segment and `**` matches any number of segments. A pattern that
 * starts with `/` is anchored at the root; otherwise it matches at any depth (`node_modules/.cache` also
 * ignores `packages/a/node_modules/.cache`). A matched directory is skipped with everything under it.
 * A pattern that starts with `!` keeps what it names and everything under it (`!/memories`: the memory layout,
 * whatever a repository's `*.md` or `memories` pattern says). As in gitignore, the last pattern that applies to a
 * path decides, so a later plain pattern can still leave out what an earlier `!` kept.
 */
export function compileIgnore(patterns: string[]): (path: string) => boolean {
  const compiled = patterns
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith('#'))
    .map((raw) => {
      const keep = raw.startsWith('!');
      const p = keep ? raw.slice(1) : raw;
      return {
        keep,
        anchored: p.startsWith('/'),
        segs: p
          .split('/')
          .filter((s) => s !== '')
          .map((s) => (s === '**' ? ('**' as const) : new RegExp(`^${s.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '.*')}$`))),
      };
    })
    .filter((c) => c.segs.length > 0);
  const matches = (pat: Array<RegExp | '**'>, anchored: boolean, segs: string[]): boolean => {
    if (anchored) return matchFrom(pat, 0, segs, 0);
    for (let j = 0; j < segs.length; j++) if (matchFrom(pat, 0, segs, j)) return true;
    return false;
  };
  const anyKeep = compiled.some((c) => c.keep);
  return (path) => {
    const segs = path.split('/');
    if (!anyKeep) return compiled.some(({ anchored, segs: pat }) => matches(pat, anchored, segs));
    for (let i = compiled.length - 1; i >= 0; i--) {
      const { keep, anchored, segs: pat } = compiled[i]!;
      // A kept directory keeps what is under it: the path or one of its ancestors is what the `!` names.
      if (keep ? segs.some((_, k) => matches(pat, anchored, segs.slice(0, k + 1))) : matches(pat, anchored, segs)) return !keep;
    }
    return false;
  };
}

function matchFrom(pat: Array<RegExp | '**'>, i: number, segs: string[], j: number): boolean {
  if (i === pat.length) return j === segs.length;
  const p = pat[i]!;
  if (p === '**') {
    for (let k = j; k <= segs.length; k++) if (matchFrom(pat, i + 1, segs, k)) return true;
    return false;
  }
  return j < segs.length && p.test(segs[j]!) && matchFrom(pat, i + 1, segs, j + 1);
}
