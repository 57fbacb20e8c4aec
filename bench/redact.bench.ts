/**
 * Redaction throughput (issue 10, item 8): `redact()` — by kind: client flags, split and base64-wrapped tokens,
 * secret-named keys, high-entropy assignments, prose in several languages — on a realistic transcript: the
 * repository's fixture transcripts of other agents (test/fixtures/transcripts, build logs and diffs included),
 * repeated to ~8 MB (2 MB quick) with one line of the secrets corpus (test/memory/secret-corpus.ts) every ~4 KB.
 * Baseline, in the same run on the same text: one plain regex pass over a handful of well-known token prefixes
 * (what a simple redactor does). Prints median MB/s of each and the ratio (redact's time / the plain pass's),
 * for the whole text as one string and for the same text redacted line by line (as transcript records are).
 * `npm run bench redact`, or `npx tsx bench/redact.bench.ts [--quick]`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redact } from '../src/memory/redact.js';
import { SECRET_CORPUS } from '../test/memory/secret-corpus.js';
import { median } from './support/stats.js';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/transcripts', import.meta.url));

/** The plain pass: known token prefixes only, one regex, as a first simple redactor would have it. */
const PLAIN = /\b(?:sk-ant-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})\b/g;
const plainPass = (text: string): string => text.replace(PLAIN, '[REDACTED]');

/** The fixture transcripts, as the text a transcript line carries, with secrets sprinkled in, to `bytes`. */
function realisticText(bytes: number): string {
  const docs = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.labels.json'))
    .sort()
    .map((f) => readFileSync(join(FIXTURES, f), 'utf8'));
  const parts: string[] = [];
  let size = 0;
  let secret = 0;
  for (let d = 0; size < bytes; d++) {
    const lines = docs[d % docs.length]!.split('\n');
    let chunk = 0;
    for (const line of lines) {
      parts.push(line);
      size += line.length + 1;
      chunk += line.length + 1;
      if (chunk > 4096) {
        chunk = 0;
        const s = SECRET_CORPUS[secret++ % SECRET_CORPUS.length]!.text;
        parts.push(s);
        size += s.length + 1;
      }
    }
  }
  return parts.join('\n');
}

function timeSync(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

export default async function redactBench(opts: { quick: boolean }): Promise<void> {
  const text = realisticText((opts.quick ? 2 : 8) * 1024 * 1024);
  const mb = Buffer.byteLength(text) / (1024 * 1024);
  const runs = opts.quick ? 3 : 7;
  // Warm-up, and a check that the text really holds what redact is for.
  const out = redact(text);
  plainPass(text);
  const found = (out.match(/\[REDACTED:/g) ?? []).length;
  const plainFound = (plainPass(text).match(/\[REDACTED\]/g) ?? []).length;
  const full: number[] = [];
  const plain: number[] = [];
  // Transcripts are redacted record by record as they are written: the same text, one line at a time.
  const records = text.split('\n');
  const perRecord: number[] = [];
  for (let i = 0; i < runs; i++) {
    plain.push(timeSync(() => plainPass(text)));
    full.push(timeSync(() => redact(text)));
    perRecord.push(timeSync(() => records.forEach((r) => redact(r))));
  }
  const [f, p, r] = [median(full), median(plain), median(perRecord)];
  console.log(`text: ${mb.toFixed(1)} MB (fixture transcripts + the secrets corpus); markers: redact ${found}, plain pass ${plainFound}; n=${runs}`);
  console.log('| pass | median ms | MB/s | time ratio vs plain |');
  console.log('|---|---|---|---|');
  console.log(`| plain regex, known prefixes (baseline) | ${p.toFixed(0)} | ${(mb / (p / 1000)).toFixed(1)} | 1.00 |`);
  console.log(`| redact() | ${f.toFixed(0)} | ${(mb / (f / 1000)).toFixed(1)} | ${(f / p).toFixed(2)} |`);
  console.log(`| redact() per record (${records.length} lines) | ${r.toFixed(0)} | ${(mb / (r / 1000)).toFixed(1)} | ${(r / p).toFixed(2)} |`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await redactBench({ quick: process.argv.includes('--quick') });
