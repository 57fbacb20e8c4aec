/**
 * `npm run eval:memory [-- <folder>] [--json] [--verbose] [--keep] [--model <name>]`
 *
 * Runs the memory pipeline (deterministic path; the model path with `--model`, using ANTHROPIC_API_KEY and
 * ANTHROPIC_BASE_URL as `mnemara run` does) over labelled transcripts in the fixtures format
 * (`../shared/fixtures/transcripts/README.md`): per repo, in `sequence` order, into a fresh workspace; then
 * judges MEMORY.md against the labels and prints recall, junk, duplicates, stale leftovers, forbidden
 * strings found under memories/ (and, apart, in the stored transcripts under sessions/), and MEMORY.md size. `--json` prints the figures instead of the table;
 * `--verbose` lists missed lessons and junk entries; `--keep` leaves the workspaces for inspection.
 * Exit code 1 when a forbidden string (a secret, an injected instruction) reached a file of the layout.
 */
import { createModelClient } from '../src/agent/client.js';
import { defaultFixtures } from './eval-memory/labels.js';
import type { Extractor } from './eval-memory/pipeline.js';
import { runEval, type EvalFigures } from './eval-memory/run.js';

const HELP = `usage: npm run eval:memory -- [folder] [--json] [--verbose] [--keep] [--model <name>]
  folder     labelled transcripts (<id>.json + <id>.labels.json); default: ${defaultFixtures()}
  --model    run both phases with this model (ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL) instead of deterministically
  --json     print the figures as JSON
  --verbose  list missed lessons, junk and stale entries per repo
  --keep     keep the temporary workspaces and print where they are`;

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;

function table(f: EvalFigures, verbose: boolean): string {
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

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  const modelAt = argv.indexOf('--model');
  const model = modelAt >= 0 ? argv[modelAt + 1] : undefined;
  if (modelAt >= 0 && (!model || model.startsWith('-'))) {
    console.error(`--model needs a model name\n${HELP}`);
    return 2;
  }
  const rest = argv.filter((_, i) => modelAt < 0 || (i !== modelAt && i !== modelAt + 1));
  const unknown = rest.filter((a) => a.startsWith('-') && !['--json', '--verbose', '--keep'].includes(a));
  if (unknown.length) {
    console.error(`unknown option ${unknown[0]}\n${HELP}`);
    return 2;
  }
  const folder = rest.find((a) => !a.startsWith('-')) ?? defaultFixtures();
  const how: Extractor = model ? { extractor: 'model', client: createModelClient(), model } : { extractor: 'deterministic' };
  const figures = await runEval(folder, { keep: rest.includes('--keep'), how });
  if (rest.includes('--json')) console.log(JSON.stringify(figures, null, 2));
  else {
    console.log(`memory eval over ${folder}\n`);
    console.log(table(figures, rest.includes('--verbose')));
    if (rest.includes('--keep')) for (const [repo, ws] of Object.entries(figures.workspaces)) console.log(`workspace ${repo}: ${ws}`);
  }
  return figures.total.forbidden > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const hint = (err as { hint?: string }).hint;
    console.error(`eval:memory failed: ${err instanceof Error ? err.message : String(err)}${hint ? `\n  ${hint}` : ''}`);
    process.exitCode = 3;
  },
);
