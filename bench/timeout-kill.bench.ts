/**
 * Timeout kills in the Docker sandbox (issue 10, item 6: "a fork bomb's survivors are gone within a second of
 * their command's timeout"). For a plain `sleep` (the baseline) and for a fork bomb, each under a 1 s timeout:
 * how long after the deadline `exec` returns, and how long after the deadline the last process the command
 * started is gone (polled from the host with `docker top`, which needs no process slot in the sandbox).
 * A third row: a 50 ms timeout, which passes while the command is still starting (the reaper's first signal
 * finds no deadline yet). Prints medians and ratios against the `sleep` baseline. `npm run bench timeout-kill`, or
 * `npx tsx bench/timeout-kill.bench.ts [--quick]`.
 */
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { DockerSandbox } from '../src/sandbox/index.js';
import { median } from './support/stats.js';

const TIMEOUT_MS = 1_000;

/** Processes in the container whose command line contains `pattern` (from the host: no sandbox slot needed). */
async function countOnHost(id: string, pattern: string): Promise<number> {
  const r = await execa('docker', ['top', id, '-eo', 'pid,args'], { reject: false });
  return r.stdout.split('\n').filter((l) => l.includes(pattern)).length;
}

/** Runs `command` under the timeout; ms from the deadline to exec's return and to the last matching process gone. */
async function once(sb: DockerSandbox, command: string, pattern: string, timeoutMs = TIMEOUT_MS): Promise<{ returned: number; gone: number }> {
  const started = performance.now();
  const r = await sb.exec(command, { timeoutMs });
  const returned = performance.now() - started - timeoutMs;
  if (!r.timedOut) throw new Error(`expected a timeout for ${command}, got exit ${r.exitCode}`);
  while ((await countOnHost(sb.id, pattern)) > 0) {
    if (performance.now() - started > 60_000) throw new Error(`processes of ${command} still alive after 60 s`);
  }
  return { returned, gone: performance.now() - started - timeoutMs };
}

export default async function timeoutKillBench(opts: { quick: boolean }): Promise<void> {
  const n = opts.quick ? 3 : 7;
  const sb = await DockerSandbox.create({ sessionId: 'timeout-kill-bench', pidsLimit: 256 });
  try {
    const plain: { returned: number; gone: number }[] = [];
    const bomb: { returned: number; gone: number }[] = [];
    const early: { returned: number; gone: number }[] = [];
    for (let i = 0; i < n; i++) {
      // A 50 ms timeout passes while the command is still starting (its leader not yet exec'd by mnemara-exec).
      early.push(await once(sb, `sleep ${400_000 + i}`, `sleep ${400_000 + i}`, 50));
      const m = 300_000 + i;
      plain.push(await once(sb, `sleep ${m}`, `sleep ${m}`));
      // Every bomb process runs bash with the marker in its arguments, so `docker top` can find the survivors.
      bomb.push(await once(sb, `bash -c 'b() { b | b & }; b; sleep ${m + 1000}' bomb-${m}`, `bomb-${m}`));
    }
    const rows: [string, number, number][] = [
      ['sleep (baseline)', median(plain.map((x) => x.returned)), median(plain.map((x) => x.gone))],
      ['fork bomb', median(bomb.map((x) => x.returned)), median(bomb.map((x) => x.gone))],
      ['sleep, 50 ms timeout (deadline while starting)', median(early.map((x) => x.returned)), median(early.map((x) => x.gone))],
    ];
    const base = rows[0]![2];
    console.log(`| command, ${TIMEOUT_MS} ms timeout (n=${n}) | exec returned after deadline (median ms) | last process gone after deadline (median ms) | gone ratio vs baseline |`);
    console.log('|---|---|---|---|');
    for (const [name, returned, gone] of rows) console.log(`| ${name} | ${returned.toFixed(0)} | ${gone.toFixed(0)} | ${(gone / base).toFixed(2)} |`);
    console.log(`fork bomb, every run (ms after deadline until gone): ${bomb.map((x) => x.gone.toFixed(0)).join(', ')}`);
  } finally {
    await sb.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await timeoutKillBench({ quick: process.argv.includes('--quick') });
