/**
 * The bench runner (`npm run bench [-- --quick] [name ...]`): runs the default export of every
 * `bench/<name>.bench.ts` — `async (opts: { quick: boolean }) => void`, which prints its own table of medians
 * and ratios against a baseline measured in the same run — one after another, or only those named
 * (`npm run bench -- snapshot exec`). `--quick` asks each for a short run. Exit code 1 if any bench threw.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Bench = (opts: { quick: boolean }) => Promise<void>;

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const unknownFlags = args.filter((a) => a.startsWith('-') && a !== '--quick');
if (unknownFlags.length) {
  process.stderr.write(`bench: unknown option ${unknownFlags.join(' ')} (usage: npm run bench -- [--quick] [name ...])\n`);
  process.exit(2);
}
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const wanted = args.filter((a) => !a.startsWith('-'));
const missing = wanted.filter((w) => !available.includes(w));
if (missing.length) {
  process.stderr.write(`bench: no bench named ${missing.join(', ')}; available: ${available.join(', ')}\n`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : available) {
  process.stdout.write(`\n## ${name}${quick ? ' (quick)' : ''}\n`);
  const started = performance.now();
  try {
    const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as { default?: Bench };
    if (typeof mod.default !== 'function') throw new Error(`bench/${name}.bench.ts has no default export function`);
    await mod.default({ quick });
    process.stdout.write(`(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  } catch (err) {
    failed += 1;
    process.stderr.write(`bench ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
