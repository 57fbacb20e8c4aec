/**
 * Session overhead without the model (issue 6): everything `runSession` does around the agent — sandbox start,
 * restore, workspace snapshot, head move, memory pipeline, memory snapshot, head swap, cleanup — for the two-run
 * example and for a generated ~100 MB workspace, on a first session (fresh copy of the host directory, full
 * layers) and a second one (restore from the lineage head, delta layers). The model is a scripted server that
 * ends the run at once; its time (the `agent` step) is left out.
 *
 * Baseline, measured in the same run on the same sandbox image: `tar -c DIR | docker exec -i C tar -x` into a
 * running container, plus `docker exec C tar -c /workspace | gzip -1 > file` back out (the bare cost of moving
 * the tree in and out, without content addressing, deltas, guards or fsync).
 *
 * `npm run bench session`, or `npx tsx bench/session.bench.ts [--quick]`. Prints medians (ms) and ratios.
 * Extraction goes into fresh directories each time (see MACHINE-NOTES: refilling a just-emptied directory is
 * ~10× slower on this disk and would measure the disk, not the tool).
 */
import { execFileSync, execSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/load.js';
import { sandboxImageTag } from '../src/sandbox/index.js';
import { runSession, type SessionResult, type SessionStep } from '../src/session.js';
import { startMessagesServer, text, turn } from '../test/support/messages-server.js';
import { median } from './support/stats.js';

const REPO = fileURLToPath(new URL('../examples/two-runs/repo', import.meta.url));
const STEPS: SessionStep[] = ['sandbox', 'restore', 'memory-read', 'snapshot-workspace', 'publish', 'memory-pipeline', 'snapshot-memory', 'advance-head', 'cleanup'];

/** ~`mb` MB in `files` files: half incompressible bytes, half source-like text (a repository is both). */
function generateWorkspace(dir: string, mb: number, files: number): void {
  const per = Math.floor((mb * 1024 * 1024) / files);
  const line = 'export function add(a: number, b: number): number { return a + b; } // lorem ipsum dolor\n';
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `pkg${i % 50}`, `mod${i % 7}`);
    mkdirSync(sub, { recursive: true });
    const body = i % 2 === 0 ? randomBytes(per) : Buffer.from(line.repeat(Math.ceil(per / line.length)).slice(0, per));
    writeFileSync(join(sub, `file${i}.${i % 2 === 0 ? 'bin' : 'ts'}`), body);
  }
}

/** Session overhead (ms, model excluded) and per-step times of one session. */
function overhead(r: SessionResult): { total: number; steps: Partial<Record<SessionStep, number>> } {
  return { total: r.timings.totalMs - (r.timings.agent ?? 0), steps: r.timings };
}

async function sessions(workspace: string, runs: number): Promise<{ first: SessionResult[]; second: SessionResult[] }> {
  const server = await startMessagesServer(() => turn(text('Nothing to do.')));
  const home = mkdtempSync(join(tmpdir(), 'mnemara-session-bench-'));
  const { config } = loadConfig({ env: { MNEMARA_HOME: home, ANTHROPIC_BASE_URL: server.url, MNEMARA_MEMORY_EXTRACTOR: 'deterministic' } });
  const first: SessionResult[] = [];
  const second: SessionResult[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const lineage = `bench-${i}`;
      first.push(await runSession({ workspace, task: 'Look around.', config, lineage }));
      second.push(await runSession({ workspace, task: 'Look around again.', config, lineage }));
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
  return { first, second };
}

/**
 * The bare cost of moving `dir` into a running sandbox container and back out gzipped (`io`), and the same with
 * the container's start and removal (`withContainer`); ms, medians of `runs`.
 */
async function baseline(dir: string, runs: number): Promise<{ io: number; withContainer: number }> {
  const image = await sandboxImageTag();
  const out = mkdtempSync(join(tmpdir(), 'mnemara-session-bench-base-'));
  const io: number[] = [];
  const whole: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const id = execFileSync('docker', ['run', '-d', '--network', 'none', '-v', '/workspace', image, 'sleep', 'infinity'], { encoding: 'utf8' }).trim();
      try {
        const t = performance.now();
        execSync(`tar -C ${JSON.stringify(dir)} -c . | docker exec -i ${id} tar -x -C /workspace`);
        execSync(`docker exec ${id} tar -C /workspace -c . | gzip -1 > ${JSON.stringify(join(out, `w${i}.tgz`))}`);
        io.push(performance.now() - t);
      } finally {
        execFileSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore' });
        whole.push(performance.now() - t0);
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return { io: median(io), withContainer: median(whole) };
}

export default async function sessionBench(opts: { quick: boolean }): Promise<void> {
  const runs = opts.quick ? 1 : 3;
  const root = mkdtempSync(join(tmpdir(), 'mnemara-session-bench-ws-'));
  const example = join(root, 'durations');
  cpSync(REPO, example, { recursive: true });
  const big = join(root, 'big');
  generateWorkspace(big, opts.quick ? 100 : 100, 2000);
  const du = (d: string): string => execFileSync('du', ['-sh', d], { encoding: 'utf8' }).split('\t')[0] as string;
  try {
    const rows: string[] = [];
    const header = ['workspace', 'session', 'overhead', ...STEPS, 'tar in+out', 'ratio', '+container', 'ratio'];
    for (const [name, dir] of [['example', example], [`100 MB (${du(big)})`, big]] as const) {
      const base = await baseline(dir, runs);
      const { first, second } = await sessions(dir, runs);
      for (const [label, results] of [['first', first], ['second', second]] as const) {
        const total = median(results.map((r) => overhead(r).total));
        const steps = STEPS.map((s) => median(results.map((r) => r.timings[s] ?? 0)).toFixed(0));
        rows.push(
          [name, label, total.toFixed(0), ...steps, base.io.toFixed(0), `${(total / base.io).toFixed(2)}×`, base.withContainer.toFixed(0), `${(total / base.withContainer).toFixed(2)}×`].join(' | '),
        );
      }
    }
    process.stdout.write(
      `\nsession overhead without the model (median of ${runs} run(s), ms). Baselines: tar in + tar out | gzip -1 through docker exec,\n` +
        `and the same plus docker run + docker rm of the container; ratio = overhead / baseline\n`,
    );
    process.stdout.write(`${header.join(' | ')}\n${header.map(() => '---').join(' | ')}\n${rows.join('\n')}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  sessionBench({ quick: process.argv.includes('--quick') }).catch((err: unknown) => {
    process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
    process.exitCode = 1;
  });
}
