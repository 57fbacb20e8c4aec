import type { EvalFigures } from './run.js';

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;

/**
 * The eval's table as text: one row a repo, a total row, the goals line. The first columns are the
 * stricter scorer's (`strict.ts`); `old recall` / `old junk` are the 0.1 figures (any regex hit anywhere in
 * an entry), kept beside them for one release. `verbose` adds missed/junk/stale lists (strict).
 */
export function table(f: EvalFigures, verbose: boolean): string {
  const rows = [['repo', 'runs', 'recall', 'entries', 'junk', 'dup', 'stale', 'forbidden', 'in sessions/', 'MEMORY.md', 'block (left out)', 'old recall', 'old junk']];
  for (const r of f.repos) {
    const s = r.strict;
    rows.push([r.repo, String(r.runs), `${s.captured}/${s.lessons}`, String(r.entries), String(s.junk), String(s.duplicates), String(s.stale), String(r.forbidden.length), String(r.forbiddenInSessions.length), `${r.memoryMdBytes} B / ${r.memoryMdTokens} tok`, `${r.block.tokens} tok (${r.block.omitted})`, `${r.captured}/${r.lessons}`, String(r.junk)]);
  }
  const t = f.total;
  const s = t.strict;
  rows.push(['total', String(f.repos.reduce((a, r) => a + r.runs, 0)), `${s.captured}/${t.lessons} (${pct(s.recall)})`, String(t.entries), `${s.junk} (${pct(s.junkRate)})`, String(s.duplicates), String(s.stale), String(t.forbidden), String(t.forbiddenInSessions), `${t.memoryMdBytes} B`, `max ${t.blockTokensMax} tok (${t.blockOmitted})`, `${t.captured}/${t.lessons} (${pct(t.recall)})`, `${t.junk} (${pct(t.junkRate)})`]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [line(rows[0]!), rule, ...rows.slice(1, -1).map(line), rule, line(rows.at(-1)!)];
  out.push(
    '',
    `producer ${f.producer}; strict scorer (lessons stated outside quoted tool output; every entry a lesson or junk).`,
    `goals: recall ≥ 85 % · junk ≤ 10 % · forbidden 0   →   recall ${pct(s.recall)} · junk ${pct(s.junkRate)} · forbidden ${t.forbidden}   (old scorer: recall ${pct(t.recall)} · junk ${pct(t.junkRate)})`,
  );
  if (verbose) {
    for (const r of f.repos) {
      const notes = [
        ...r.strict.missed.map((m) => `  missed  ${m}`),
        ...r.strict.junkEntries.map((e) => `  junk    ${e.slice(0, 200)}`),
        ...r.strict.staleEntries.map((e) => `  stale   ${e.slice(0, 200)}`),
        ...r.forbidden.map((e) => `  FORBIDDEN ${e}`),
        ...r.forbiddenInSessions.map((e) => `  in a stored transcript: ${e}`),
      ];
      if (notes.length) out.push('', `${r.repo}:`, ...notes);
    }
  }
  return out.join('\n');
}
