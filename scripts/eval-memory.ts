/**
 * `npm run eval:memory [-- <folder>] [--json] [--verbose] [--keep] [--model <name>]`
 *
 * Runs the memory pipeline (deterministic path; the model path with `--model`, using ANTHROPIC_API_KEY and
 * ANTHROPIC_BASE_URL as `mnemara run` does) over labelled transcripts in the fixtures format
 * (`test/fixtures/transcripts/README.md`): per repo, in `sequence` order, into a fresh workspace; then
 * judges MEMORY.md against the labels and prints recall, junk, duplicates, stale leftovers, forbidden
 * strings found under memories/ (and, apart, in the stored transcripts under sessions/), and MEMORY.md size. `--json` prints the figures instead of the table;
 * `--verbose` lists missed lessons and junk entries; `--keep` leaves the workspaces for inspection.
 * Exit code 1 when a forbidden string (a secret, an injected instruction) reached a file of the layout.
 */
import { createModelClient } from '../src/agent/client.js';
import { defaultFixtures } from './eval-memory/labels.js';
import type { Extractor } from './eval-memory/pipeline.js';
import { runEval } from './eval-memory/run.js';
import { table } from './eval-memory/table.js';

const HELP = `usage: npm run eval:memory -- [folder] [--json] [--verbose] [--keep] [--model <name>]
  folder     labelled transcripts (<id>.json + <id>.labels.json); default: test/fixtures/transcripts (or $MNEMARA_EVAL_FIXTURES)
  --model    run both phases with this model (ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL) instead of deterministically
  --json     print the figures as JSON
  --verbose  list missed lessons, junk and stale entries per repo
  --keep     keep the temporary workspaces and print where they are`;

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
