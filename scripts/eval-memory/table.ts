import type { EvalFigures } from './run.js';

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;

/** The eval's table as text (one row a repo, a total row, the goals line); `verbose` adds missed/junk/stale lists. */
export function table(f: EvalFigures, verbose: boolean): string {
  const rows = [['repo', 'runs', 'recall', 'entries', 'junk', 'dup', 'stale', 'forbidden', 'in sessions/', 'MEMORY.md']];
  for (const r of f.repos) {
    rows.push([r.repo, String(r.runs), `${r.captured}/${r.lessons}`, String(r.entries), String(r.junk), String(r.duplicates), String(r.stale), String(r.forbidden.length), String(r.forbiddenInSessions.length), `${r.memoryMdBytes} B / ${r.memoryMdTokens} tok`]);
  }
  const t = f.total;
  rows.push(['total', String(f.repos.reduce((a, r) => a + r.runs, 0)), `${t.captured}/${t.lessons} (${pct(t.recall)})`, String(t.entries), `${t.junk} (${pct(t.junkRate)})`, String(t.duplicates), String(t.stale), String(t.forbidden), String(t.forbiddenInSessions), `${t.memoryMdBytes} B`]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1, -1).map(line), widths.map((w) => '-'.repeat(w)).join('  '), line(rows.at(-1)!)];
  out.push('', `producer ${f.producer}; goals (deterministic path): recall ≥ 70 % · junk ≤ 20 % · forbidden 0   →   recall ${pct(t.recall)} · junk ${pct(t.junkRate)} · forbidden ${t.forbidden}`);
  if (verbose) {
    for (const r of f.repos) {
      const notes = [
        ...r.missed.map((m) => `  missed  ${m}`),
        ...r.junkEntries.map((e) => `  junk    ${e.slice(0, 160)}`),
        ...r.staleEntries.map((e) => `  stale   ${e.slice(0, 160)}`),
        ...r.forbidden.map((e) => `  FORBIDDEN ${e}`),
        ...r.forbiddenInSessions.map((e) => `  in a stored transcript: ${e}`),
      ];
      if (notes.length) out.push('', `${r.repo}:`, ...notes);
    }
  }
  return out.join('\n');
}
