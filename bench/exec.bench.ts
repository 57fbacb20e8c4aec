/**
 * Sandbox exec round trip (issue 2): the median wall time of `DockerSandbox.exec('true')` — create, start,
 * demultiplex, exit code from exec inspect — next to `docker exec <container> true` from the command line on the
 * same container, measured alternately in the same run; and `LocalSandbox.exec('true')` next to spawning `true`
 * on the host; and starting + removing a DockerSandbox next to `docker run --rm <image> true`. Prints medians and
 * ratios. `npm run bench exec`, or `npx tsx bench/exec.bench.ts [--quick]`.
 */
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { DockerSandbox, LocalSandbox, sandboxImageTag } from '../src/sandbox/index.js';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

export default async function execBench(opts: { quick: boolean }): Promise<void> {
  const n = opts.quick ? 10 : 50;
  const rows: [string, number, string][] = [];

  const docker = await DockerSandbox.create({ sessionId: 'exec-bench' });
  try {
    for (let i = 0; i < 3; i++) {
      await docker.exec('true');
      await execa('docker', ['exec', docker.id, 'true']);
    }
    const api: number[] = [];
    const cli: number[] = [];
    for (let i = 0; i < n; i++) {
      api.push(await time(() => docker.exec('true')));
      cli.push(await time(() => execa('docker', ['exec', docker.id, 'true'])));
    }
    const [a, c] = [median(api), median(cli)];
    rows.push(['docker exec true (CLI, baseline)', c, '1.00']);
    rows.push(["DockerSandbox.exec('true')", a, (a / c).toFixed(2)]);
  } finally {
    await docker.close();
  }

  // Start + remove: a hardened sandbox against the plainest container run, alternated.
  const image = await sandboxImageTag();
  const starts: number[] = [];
  const runs: number[] = [];
  for (let i = 0; i < (opts.quick ? 3 : 8); i++) {
    starts.push(await time(async () => (await DockerSandbox.create({ sessionId: 'exec-bench-start' })).close()));
    runs.push(await time(() => execa('docker', ['run', '--rm', '--network', 'none', image, 'true'])));
  }
  const [st, ru] = [median(starts), median(runs)];
  rows.push(['docker run --rm <image> true (baseline)', ru, '1.00']);
  rows.push(['DockerSandbox.create + close', st, (st / ru).toFixed(2)]);

  const local = await LocalSandbox.create({ sessionId: 'exec-bench' });
  try {
    const host: number[] = [];
    const sb: number[] = [];
    for (let i = 0; i < n; i++) {
      host.push(await time(() => execa('true')));
      sb.push(await time(() => local.exec('true')));
    }
    const [h, l] = [median(host), median(sb)];
    rows.push(['execa true on the host (baseline)', h, '1.00']);
    rows.push(["LocalSandbox.exec('true')", l, (l / h).toFixed(2)]);
  } finally {
    await local.close();
  }

  console.log(`\nsandbox round trips, medians (exec: ${n} alternated pairs; start: ${starts.length})`);
  console.log(`${'what'.padEnd(42)} ${'median'.padStart(10)}  ratio`);
  for (const [what, ms, ratio] of rows) console.log(`${what.padEnd(42)} ${fmt(ms).padStart(10)}  ${ratio}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await execBench({ quick: process.argv.includes('--quick') });
}
