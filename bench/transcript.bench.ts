/**
 * Transcript reading and phase 1 (issues 4 and 5), on generated transcripts in mnemara's own format:
 * - reading: `loadTranscript` (streamed lines, UTF-8 check, surrogate repair, zod validation per record)
 *   against a baseline of `readline` + `JSON.parse` with no checks, on the same ~100 MB file (20 MB quick);
 * - phase 1, deterministic: `extractRollout` on a long run (2,000 tool calls with failures, fixes and a
 *   300 KB build log) against the time to read that run.
 * Prints medians and ratios. `npm run bench transcript`, or `npx tsx bench/transcript.bench.ts [--quick]`.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { loadTranscript } from '../src/transcript/reader.js';
import { extractRollout } from '../src/memory/phase1/index.js';
import { median, timeMs as time } from './support/stats.js';

const ts = '2026-11-29T17:00:00.000Z';
const meta = { type: 'session_meta', v: 1, ts, rolloutId: 'bench', conversationId: 'bench', task: 'build and test', model: 'm', source: 'mnemara', versions: {} };

/** A run of `steps` tool calls: every 10th command fails and the next one fixes it; outputs of `outputBytes`. */
async function writeRun(file: string, steps: number, outputBytes: number): Promise<number> {
  const fh = await open(file, 'w');
  let bytes = 0;
  const put = async (r: unknown) => {
    const line = `${JSON.stringify(r)}\n`;
    bytes += line.length;
    await fh.write(line);
  };
  await put(meta);
  await put({ type: 'message', v: 1, ts, turn: 0, role: 'user', text: 'build and test' });
  const filler = 'warning: deprecated declaration in legacy/buffer.hpp:42 [-Wdeprecated-declarations]\n';
  const output = filler.repeat(Math.max(1, Math.floor(outputBytes / filler.length)));
  for (let i = 1; i <= steps; i += 1) {
    const fails = i % 10 === 0;
    const command = fails ? `make -j16 target${i}` : i % 10 === 1 && i > 1 ? `make -j4 target${i - 1}` : `ls src/dir${i}`;
    await put({ type: 'tool_call', v: 1, ts, turn: i, id: `t${i}`, name: 'bash', input: { command } });
    const out = fails ? `${output}c++: fatal error: Killed signal terminated program cc1plus` : output;
    await put({ type: 'tool_result', v: 1, ts, turn: i, id: `t${i}`, name: 'bash', output: out, isError: fails, exitCode: fails ? 2 : 0, durationMs: 10 });
  }
  await put({ type: 'session_end', v: 1, ts, outcome: 'completed', turns: steps, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 }, wallMs: 1 });
  await fh.close();
  return bytes;
}

async function baselineRead(file: string): Promise<number> {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line) {
      JSON.parse(line);
      n += 1;
    }
  }
  return n;
}

export default async function transcriptBench(opts: { quick: boolean }): Promise<void> {
  const runs = opts.quick ? 3 : 5;
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-transcript-bench-'));
  try {
    const big = join(dir, 'big.jsonl');
    const mb = opts.quick ? 20 : 100;
    const bytes = await writeRun(big, mb * 16, 64 * 1024 - 200);
    const base: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      base.push(await time(() => baselineRead(big)));
      ours.push(await time(() => loadTranscript(big)));
    }

    const long = join(dir, 'long.jsonl');
    await writeRun(long, 2000, 2_000);
    const { records } = await loadTranscript(long);
    const read: number[] = [];
    const extract: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      read.push(await time(() => loadTranscript(long)));
      extract.push(await time(() => extractRollout({ records, transcriptPath: 'sessions/bench.jsonl', mode: 'deterministic' })));
    }

    const [b, o, r, e] = [median(base), median(ours), median(read), median(extract)];
    const mbps = (ms: number) => `${((bytes / 1024 / 1024) / (ms / 1000)).toFixed(0)} MB/s`;
    console.log(`\ntranscript reading (${(bytes / 1024 / 1024).toFixed(0)} MB, ${mb * 16} tool calls) and phase 1, median of ${runs}`);
    console.log(`${'what'.padEnd(52)} ${'median'.padStart(10)} ${'speed'.padStart(9)}  ratio`);
    console.log(`${'readline + JSON.parse, no checks (baseline)'.padEnd(52)} ${`${b.toFixed(0)} ms`.padStart(10)} ${mbps(b).padStart(9)}  1.00`);
    console.log(`${'loadTranscript (UTF-8, repair, zod per record)'.padEnd(52)} ${`${o.toFixed(0)} ms`.padStart(10)} ${mbps(o).padStart(9)}  ${(o / b).toFixed(2)}`);
    console.log(`${'read a 2,000-call run (baseline for the next row)'.padEnd(52)} ${`${r.toFixed(0)} ms`.padStart(10)} ${''.padStart(9)}  1.00`);
    console.log(`${'extractRollout deterministic on it'.padEnd(52)} ${`${e.toFixed(0)} ms`.padStart(10)} ${''.padStart(9)}  ${(e / r).toFixed(2)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await transcriptBench({ quick: process.argv.includes('--quick') });
}
