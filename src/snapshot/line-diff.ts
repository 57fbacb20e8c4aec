/** Files with more lines than this on either side get no line diff (the LCS table is quadratic). */
const MAX_LINES = 4000;

/**
 * A unified diff (`---`/`+++` header, `@@` hunks, 3 lines of context) of two texts, computed from a
 * longest-common-subsequence table. Returns `null` when either side has more than 4,000 lines.
 */
export function unifiedDiff(a: string, b: string, nameA: string, nameB: string): string | null {
  const lines = (t: string): string[] => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
  const x = lines(a);
  const y = lines(b);
  if (x.length > MAX_LINES || y.length > MAX_LINES) return null;
  const n = x.length;
  const m = y.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = x[i] === y[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  type Op = { t: ' ' | '-' | '+'; s: string; ai: number; bi: number };
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push({ t: ' ', s: x[i]!, ai: i++, bi: j++ });
    else if (i < n && (j >= m || lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) ops.push({ t: '-', s: x[i]!, ai: i++, bi: j });
    else ops.push({ t: '+', s: y[j]!, ai: i, bi: j++ });
  }
  const out = [`--- ${nameA}`, `+++ ${nameB}`];
  for (let k = 0; k < ops.length; ) {
    if (ops[k]!.t === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - 3);
    let end = k;
    let quiet = 0;
    while (end < ops.length && quiet <= 6) {
      quiet = ops[end]!.t === ' ' ? quiet + 1 : 0;
      end++;
    }
    end = Math.min(ops.length, end - Math.max(0, quiet - 3));
    const hunk = ops.slice(start, end);
    const aLen = hunk.filter((o) => o.t !== '+').length;
    const bLen = hunk.filter((o) => o.t !== '-').length;
    out.push(`@@ -${aLen ? hunk[0]!.ai + 1 : hunk[0]!.ai},${aLen} +${bLen ? hunk[0]!.bi + 1 : hunk[0]!.bi},${bLen} @@`);
    for (const o of hunk) out.push(`${o.t}${o.s}`);
    k = end;
  }
  return out.length > 2 ? `${out.join('\n')}\n` : '';
}
