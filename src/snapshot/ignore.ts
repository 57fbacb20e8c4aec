/**
 * Compiles ignore patterns into one matcher over `/`-separated relative paths. A pattern is a path of
 * segments where `*` matches within one segment and `**` matches any number of segments. A pattern that
 * starts with `/` is anchored at the root; otherwise it matches at any depth (`node_modules/.cache` also
 * ignores `packages/a/node_modules/.cache`). A matched directory is skipped with everything under it.
 */
export function compileIgnore(patterns: string[]): (path: string) => boolean {
  const compiled = patterns
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith('#'))
    .map((p) => ({
      anchored: p.startsWith('/'),
      segs: p
        .split('/')
        .filter((s) => s !== '')
        .map((s) => (s === '**' ? '**' : new RegExp(`^${s.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '.*')}$`))),
    }));
  return (path) => {
    const segs = path.split('/');
    return compiled.some(({ anchored, segs: pat }) => {
      if (anchored) return matchFrom(pat, 0, segs, 0);
      for (let j = 0; j < segs.length; j++) if (matchFrom(pat, 0, segs, j)) return true;
      return false;
    });
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
