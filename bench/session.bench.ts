/**
 * Session overhead without the model (issues 6 and 15): everything `runSession` does around the agent — sandbox
 * start, restore, workspace snapshot, head move, memory pipeline, memory snapshot, head swap, cleanup — on a
 * 2 MB repository, a generated 200 MB / 20,000-file tree, and a real project with its dependencies installed
 * (the largest ready tree under MNEMARA_CORPUS_DIR, default /var/cache/mnemara-corpus, which
 * scripts/setup/corpus.sh fills; or MNEMARA_BENCH_REAL=DIR). Per tree: a first session (fresh copy of the host
 * directory), then sessions from the lineage head that change nothing, and sessions from the head whose agent
 * changes 3 files. The model is the scripted server of test/support/messages-server.ts (no network); its time
 * (the `agent` step) is left out.
 *
 * Baseline, measured in the same run on the same tree and image: `docker run` + `tar -c DIR | docker exec -i C
 * tar -x` in + `docker exec C tar -c /workspace | gzip -1 > file` out + `docker rm` (the bare cost of a
 * container and of moving the tree in and out, without content addressing, deltas, guards, memory or fsync).
 *
 * `npm run bench -- session [--quick]`, or `npx tsx bench/session.bench.ts [--quick]` (MNEMARA_BENCH_RUNS=N: N runs;
 * MNEMARA_BENCH_TREES=small,real: only those trees of small, generated, real; MNEMARA_BENCH_CACHE=0: not the cached-image sessions). Prints medians (ms), the
 * parts of each step (`SessionResult.timings.parts`), and the ratios issue 15 asks for.
 */
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/load.js';
import { sandboxImageTag } from '../src/sandbox/index.js';
import { runSession, type SessionResult, type SessionStep } from '../src/session.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn } from '../test/support/messages-server.js';
import { median, table } from './support/stats.js';

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

/** The largest ready real-project tree of the corpus cache, or MNEMARA_BENCH_REAL; null when there is none. */
function realTree(): string | null {
  if (process.env.MNEMARA_BENCH_REAL) return process.env.MNEMARA_BENCH_REAL;
  const cache = process.env.MNEMARA_CORPUS_DIR ?? '/var/cache/mnemara-corpus';
  if (!existsSync(cache)) return null;
  const ready = readdirSync(cache)
    .map((n) => join(cache, n))
    .filter((d) => existsSync(join(d, '.mnemara-corpus-ready')));
  const size = (d: string): number => Number(execFileSync('du', ['-sk', d], { encoding: 'utf8' }).split('\t')[0]);
  return ready.sort((a, b) => size(b) - size(a))[0] ?? null;
}

/** The agent's command in a "changed 3 files" session: appends a line to the first 3 files found outside the memory layout. */
const EDIT_THREE = "find . -type f -not -path './memories/*' -not -path './sessions/*' -not -path './.git/*' | sort | head -3 | while read -r f; do echo \"// edit $RANDOM\" >> \"$f\"; done";

type Kind = 'first' | 'head' | 'changed-3';

/**
 * Sessions on `workspace`: one first session, then `runs` from the head changing nothing and `runs` changing 3
 * files. `cache`: with the workspace cache on (`sandbox.workspaceCacheBytes`), after one more session from the
 * head that fills it (not counted), so every counted session starts from a cached image.
 */
async function sessions(workspace: string, runs: number, cache = false): Promise<Record<Kind, SessionResult[]>> {
  const server = await startMessagesServer((req) => {
    const wantsEdit = JSON.stringify(req.body).includes('Change three files');
    if (wantsEdit && lastToolResults(req).length === 0) return turn(toolUse('bash', { command: EDIT_THREE }));
    return turn(text('Done.'));
  });
  const home = mkdtempSync(join(tmpdir(), 'mnemara-session-bench-'));
  const cacheEnv = cache ? { MNEMARA_SANDBOX_WORKSPACE_CACHE_BYTES: String(8 * 1024 ** 3) } : {};
  const { config } = loadConfig({ env: { MNEMARA_HOME: home, ANTHROPIC_BASE_URL: server.url, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ...cacheEnv } });
  const out: Record<Kind, SessionResult[]> = { first: [], head: [], 'changed-3': [] };
  try {
    const lineage = 'bench';
    out.first.push(await runSession({ workspace, task: 'Look around.', config, lineage }));
    if (cache) await runSession({ workspace, task: 'Look around again.', config, lineage });
    for (let i = 0; i < runs; i++) {
      out.head.push(await runSession({ workspace, task: 'Look around again.', config, lineage }));
      out['changed-3'].push(await runSession({ workspace, task: 'Change three files.', config, lineage }));
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
  return out;
}

/** Session overhead (ms): the whole session minus the agent step (the model and the agent's own commands). */
const overhead = (r: SessionResult): number => r.timings.totalMs - (r.timings.agent ?? 0);

/**
 * The bare cost of a container and of moving `dir` into it and back out gzipped: `docker run` + tar in +
 * `tar | gzip -1` out + `docker rm`; ms, median of `runs`.
 */
async function baseline(dir: string, runs: number): Promise<number> {
  const image = await sandboxImageTag();
  const out = mkdtempSync(join(tmpdir(), 'mnemara-session-bench-base-'));
  const whole: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const id = execFileSync('docker', ['run', '-d', '--network', 'none', '-v', '/workspace', image, 'sleep', 'infinity'], { encoding: 'utf8' }).trim();
      try {
        execSync(`tar -C ${JSON.stringify(dir)} -c . | docker exec -i ${id} tar -x -C /workspace`);
        execSync(`docker exec ${id} tar -C /workspace -c . | gzip -1 > ${JSON.stringify(join(out, `w${i}.tgz`))}`);
      } finally {
        execFileSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore' });
        whole.push(performance.now() - t0);
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return median(whole);
}

export default async function sessionBench(opts: { quick: boolean }): Promise<void> {
  const runs = Number(process.env.MNEMARA_BENCH_RUNS) || (opts.quick ? 1 : 3);
  const root = mkdtempSync(join(tmpdir(), 'mnemara-session-bench-ws-'));
  const small = join(root, 'small');
  generateWorkspace(small, 2, 200);
  // MNEMARA_BENCH_TREES=small,real (any of small, generated, real): only those; the 2 MB tree is always measured.
  const only = process.env.MNEMARA_BENCH_TREES?.split(',').map((t) => t.trim());
  const want = (t: string): boolean => !only || only.includes(t);
  const big = join(root, 'big');
  if (want('generated')) generateWorkspace(big, opts.quick ? 50 : 200, opts.quick ? 5000 : 20_000);
  const real = want('real') ? realTree() : null;
  const du = (d: string): string => execFileSync('du', ['-sh', d], { encoding: 'utf8' }).split('\t')[0] as string;
  const files = (d: string): number => Number(execSync(`find ${JSON.stringify(d)} | wc -l`, { encoding: 'utf8' }).trim());
  const trees: Array<[string, string]> = [
    [`2 MB (${files(small)} files)`, small],
    ...(want('generated') ? [[`generated ${du(big)} (${files(big)} files)`, big] as [string, string]] : []),
    ...(real ? [[`real ${basename(real)} ${du(real)} (${files(real)} files)`, real] as [string, string]] : []),
  ];
  try {
    const rows: string[][] = [['tree', 'session', 'overhead', ...STEPS, 'baseline', 'ratio']];
    const partRows: string[][] = [];
    const results = new Map<string, Record<Kind, SessionResult[]>>();
    const cachedResults = new Map<string, Record<Kind, SessionResult[]>>();
    const baselines = new Map<string, number>();
    const report = (name: string, label: string, r: Record<Kind, SessionResult[]>, kinds: Kind[], base: number): void => {
      for (const kind of kinds) {
        const total = median(r[kind].map(overhead));
        rows.push([name, `${kind}${label}`, total.toFixed(0), ...STEPS.map((s) => median(r[kind].map((x) => x.timings[s] ?? 0)).toFixed(0)), base.toFixed(0), `${(total / base).toFixed(2)}×`]);
        const keys = [...new Set(r[kind].flatMap((x) => Object.keys(x.timings.parts ?? {})))].sort();
        const modes = [...new Set(r[kind].map((x) => x.workspaceSnapshotMode?.kind ?? '?'))].join('/');
        partRows.push([name, `${kind}${label}`, modes, keys.map((k) => `${k} ${median(r[kind].map((x) => x.timings.parts?.[k] ?? 0)).toFixed(0)}`).join(', ')]);
      }
    };
    for (const [name, dir] of trees) {
      const base = await baseline(dir, runs);
      const r = await sessions(dir, runs);
      results.set(name, r);
      baselines.set(name, base);
      report(name, '', r, ['first', 'head', 'changed-3'], base);
      // The same from a cached workspace image (root with a local engine only: the quota disk is the image).
      if (process.getuid?.() === 0 && process.env.MNEMARA_BENCH_CACHE !== '0') {
        const c = await sessions(dir, runs, true);
        cachedResults.set(name, c);
        report(name, ' (cached)', c, ['head', 'changed-3'], base);
      }
    }
    process.stdout.write(`\nsession overhead without the model (first: 1 run; head, changed-3: median of ${runs}), ms. Baseline: docker run + tar in + tar | gzip -1 out + docker rm, same tree, same run; ratio = overhead / baseline\n`);
    process.stdout.write(`${table(rows)}\n\nparts (ms, medians) and how the workspace snapshot was taken\n`);
    for (const p of partRows) process.stdout.write(`${p[0]} | ${p[1]} | snapshot: ${p[2]} | ${p[3]}\n`);
    const biggest = trees[trees.length - 1]![0];
    const headRatio = median(results.get(biggest)!.head.map(overhead)) / baselines.get(biggest)!;
    const changedBig = median(results.get(biggest)!['changed-3'].map(overhead));
    const changedSmall = median(results.get(trees[0]![0])!['changed-3'].map(overhead));
    process.stdout.write(
      `\nissue 15 targets on ${biggest}:\n` +
        `  second run from the head / docker-and-tar baseline: ${headRatio.toFixed(2)}× (target ≤ 1.2×)\n` +
        `  run that changed 3 files / the same on the 2 MB repository: ${(changedBig / changedSmall).toFixed(2)}× (${changedBig.toFixed(0)} / ${changedSmall.toFixed(0)} ms; target ≤ 1.5×)\n`,
    );
    const cb = cachedResults.get(biggest);
    const cs = cachedResults.get(trees[0]![0]);
    if (cb && cs) {
      const headC = median(cb.head.map(overhead)) / baselines.get(biggest)!;
      const bigC = median(cb['changed-3'].map(overhead));
      const smallC = median(cs['changed-3'].map(overhead));
      const hits = [...cb.head, ...cb['changed-3']].filter((x) => x.timings.parts?.['restore.cached'] === 1).length;
      process.stdout.write(
        `  from a cached workspace image (${hits} of ${cb.head.length + cb['changed-3'].length} sessions on it took the cached path):\n` +
          `    second run from the head / docker-and-tar baseline: ${headC.toFixed(2)}× (target ≤ 1.2×)\n` +
          `    run that changed 3 files / the same on the 2 MB repository: ${(bigC / smallC).toFixed(2)}× (${bigC.toFixed(0)} / ${smallC.toFixed(0)} ms; target ≤ 1.5×); / today's same run on this tree: ${(bigC / changedBig).toFixed(2)}×\n`,
      );
    }
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
