/**
 * Snapshot store (issues 3 and 15), each number next to a baseline measured in the same run, medians:
 * - pack (a full snapshot) against `tar -czf`, restore into a fresh directory against `tar -xzf` (alternating);
 * - the codec and level (gzip 1 vs 6, and `tar | zstd -1` for what a zstd codec would buy);
 * - what a memory-only snapshot adds to the store, every byte counted (layer, tree index, manifest) as % of the
 *   tree, for one snapshot and for a run of them (which crosses `maxChainLength`, so deltas get folded), and the
 *   time of a second snapshot of the whole tree with only memories/ changed.
 * Trees: a generated 200 MB / 20,000-file tree, and the largest real npm project with dependencies under
 * /var/cache/mnemara-corpus (`scripts/setup/corpus.sh`) when present, else this project's node_modules.
 * Every restore and extract goes into a directory never used before, and nothing is deleted until the end (see
 * shared/MACHINE-NOTES.md: creating files right after deleting a copy is ~10× slower here).
 * `npm run bench -- snapshot [--quick]`.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../src/config/version.js';
import { openStore } from '../src/snapshot/index.js';
import { generateTree } from './support/gen-tree.js';
import { median, table, timeMs } from './support/stats.js';
import { memoryLayout, storeBytes } from './support/store-growth.js';

const CORPUS = '/var/cache/mnemara-corpus';

/** The largest project directory in the corpus cache, or undefined. */
async function corpusTree(): Promise<string | undefined> {
  if (!existsSync(CORPUS)) return undefined;
  let best: { dir: string; bytes: number } | undefined;
  for (const name of readdirSync(CORPUS)) {
    const dir = join(CORPUS, name);
    if (!statSync(dir).isDirectory()) continue;
    const { bytes } = await treeBytes(dir);
    if (!best || bytes > best.bytes) best = { dir, bytes };
  }
  return best?.dir;
}

const sh = promisify(execFile);
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;
/** The 1-minute load average (the machine is shared: read every time against it). */
const load = (): string => loadavg()[0]!.toFixed(1);

async function treeBytes(dir: string): Promise<{ bytes: number; files: number }> {
  const { stdout } = await sh('bash', ['-c', `find "${dir}" -type f -printf '%s\\n' | awk '{s+=$1; n++} END {print s, n}'`]);
  const [bytes, files] = stdout.trim().split(' ').map(Number);
  return { bytes: bytes!, files: files! };
}

export default async function snapshotBench(opts: { quick: boolean }): Promise<void> {
  const runs = opts.quick ? 1 : 5; // pack and restore: medians of 5 against tar, alternating which goes first
  const memRuns = opts.quick ? 20 : 100;
  const work = mkdtempSync(join(tmpdir(), 'mnemara-bench-snapshot-'));
  const genDir = join(tmpdir(), 'mnemara-bench-tree-200m');
  generateTree(genDir, 20_000, 200 * 1024 * 1024);
  const real = await corpusTree();
  const trees = [
    { name: 'generated', dir: genDir },
    real ? { name: `real (${real.split('/').pop()})`, dir: real } : { name: 'node_modules', dir: join(PACKAGE_ROOT, 'node_modules') },
  ];
  const fresh = (tag: string): string => join(mkdtempSync(join(work, `${tag}-`)), 'out');
  const loadAtStart = load();
  try {
    const rows: string[][] = [['tree', 'files', 'size', 'mnemara pack', 'tar -czf', 'ratio', 'mnemara restore', 'tar -xzf', 'ratio', 'stored', '.tgz']];
    for (const tree of trees) {
      const { bytes, files } = await treeBytes(tree.dir);
      await sh('tar', ['-cf', '/dev/null', '-C', tree.dir, '.']); // warm the page cache for both
      const pack: number[] = [];
      const tarc: number[] = [];
      const rest: number[] = [];
      const tarx: number[] = [];
      let stored = 0;
      let tgz = 0;
      for (let i = 0; i < runs; i++) {
        const store = await openStore(join(work, `store-${tree.name}-${i}`));
        const archive = join(work, `${tree.name}-${i}.tgz`);
        let id = '';
        const packOurs = async (): Promise<void> => {
          pack.push(await timeMs(async () => (id = (await store.create({ dir: tree.dir }, { lineage: 'bench', kind: 'workspace', parent: null })).id)));
        };
        const packTar = async (): Promise<void> => {
          tarc.push(await timeMs(() => sh('tar', ['-czf', archive, '-C', tree.dir, '.'])));
        };
        if (i % 2) await packTar().then(packOurs);
        else await packOurs().then(packTar);
        stored = (await store.get(id)).layers[0]!.compressedBytes;
        tgz = statSync(archive).size;
        const restoreOurs = async (): Promise<void> => {
          const out = fresh('ours');
          rest.push(await timeMs(() => store.restoreToDirectory(id, out)));
        };
        const restoreTar = async (): Promise<void> => {
          const out = fresh('tar');
          mkdirSync(out);
          tarx.push(await timeMs(() => sh('tar', ['-xzf', archive, '-C', out])));
        };
        if (i % 2) await restoreTar().then(restoreOurs);
        else await restoreOurs().then(restoreTar);
      }
      const [p, tc, r, tx] = [median(pack), median(tarc), median(rest), median(tarx)];
      rows.push([tree.name, String(files), mb(bytes), s(p), s(tc), (p / tc).toFixed(2), s(r), s(tx), (r / tx).toFixed(2), mb(stored), mb(tgz)]);
    }
    process.stdout.write(
      `Pack and restore, medians of ${runs} run(s) (ratio = mnemara / tar in the same run; targets: pack ≤ 0.4, restore ≤ 1.0); into fresh directories; load average ${loadAtStart} → ${load()}\n${table(rows)}\n\n`,
    );

    // Codec choice, measured on the generated tree.
    const codecRows: string[][] = [['codec', 'pack (median)', 'stored', 'vs gzip 6 time']];
    const codecRuns = 1;
    const results: Array<[string, number, number]> = [];
    for (const level of [1, 6]) {
      const times: number[] = [];
      let size = 0;
      for (let i = 0; i < codecRuns; i++) {
        const store = await openStore(join(work, `codec-${level}-${i}`), { level });
        let id = '';
        times.push(await timeMs(async () => (id = (await store.create({ dir: genDir }, { lineage: 'c', kind: 'workspace', parent: null })).id)));
        size = (await store.get(id)).layers[0]!.compressedBytes;
      }
      results.push([`mnemara gzip ${level}`, median(times), size]);
    }
    if (await sh('zstd', ['--version']).then(() => true, () => false)) {
      const times: number[] = [];
      const out = join(work, 'ref.tar.zst');
      for (let i = 0; i < codecRuns; i++) times.push(await timeMs(() => sh('bash', ['-c', `tar -cf - -C "${genDir}" . | zstd -1 -q -f -o "${out}"`])));
      results.push(['tar | zstd -1 (reference)', median(times), statSync(out).size]);
    }
    const g6 = results.find((r) => r[0] === 'mnemara gzip 6')![1];
    for (const [name, t, size] of results) codecRows.push([name, s(t), mb(size), (t / g6).toFixed(2)]);
    process.stdout.write(`Codec and level (generated tree, ${codecRuns} run(s))\n${table(codecRows)}\n\n`);

    // Memory-only snapshots: every byte they add (layer, tree index, manifest), one and a run of them.
    const memRows: string[][] = [['tree', 'snapshot', 'bytes added', '% of tree', 'time (median)']];
    for (const tree of trees) {
      const store = await openStore(join(work, `mem-${tree.name.replace(/\W+/g, '_')}`));
      const { bytes } = await treeBytes(tree.dir);
      const pct = (b: number): string => `${((b / bytes) * 100).toFixed(4)} %`;
      const first = await store.create({ dir: tree.dir }, { lineage: 'm', kind: 'workspace' });
      await store.advanceHead('m', null, first.id);
      const layout = memoryLayout(tree.dir, join(work, `layout-${memRows.length}`));
      const before = await storeBytes(store);
      const perRun: number[] = [];
      const times: number[] = [];
      let head = first.id;
      for (let run = 2; run < memRuns + 2; run++) {
        layout.bump(run);
        const start = await storeBytes(store);
        let id = '';
        times.push(await timeMs(async () => (id = (await store.create({ dir: layout.dir }, { lineage: 'm', kind: 'memory', scope: ['memories', 'sessions'] })).id)));
        await store.advanceHead('m', head, id);
        head = id;
        perRun.push((await storeBytes(store)) - start);
      }
      const total = (await storeBytes(store)) - before;
      memRows.push([tree.name, 'one memory-only snapshot (median)', `${median(perRun)} B`, pct(median(perRun)), s(median(times))]);
      memRows.push([tree.name, `${memRuns} memory-only snapshots (largest one: ${Math.max(...perRun)} B)`, mb(total), pct(total), s(times.reduce((a, b) => a + b, 0))]);
      if (tree.name === 'generated') {
        // The whole tree again, with only memories/ changed: hashes everything, stores only the change.
        const original = readFileSync(join(tree.dir, 'memories/MEMORY.md'));
        writeFileSync(join(tree.dir, 'memories/MEMORY.md'), readFileSync(join(layout.dir, 'memories/MEMORY.md')));
        try {
          const added = async (fn: () => Promise<unknown>): Promise<[number, number]> => {
            const start = await storeBytes(store);
            const t = await timeMs(fn);
            return [(await storeBytes(store)) - start, t];
          };
          const [wsBytes, wsTime] = await added(() => store.create({ dir: tree.dir }, { lineage: 'm', kind: 'workspace', parent: head }));
          memRows.push([tree.name, 'workspace (whole tree walked)', `${wsBytes} B`, pct(wsBytes), s(wsTime)]);
          // The same from a tar stream (how a session snapshots a sandbox): every byte is read and hashed,
          // but the parent's tree still comes from its index, not from its layers.
          const [tarBytes, tarTime] = await added(async () => {
            // Piped at once: Node discards a child's stdout that nobody has started reading when the child exits.
            const tar = spawn('tar', ['-cf', '-', '-C', tree.dir, '.'], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout.pipe(new PassThrough());
            return store.create({ tar }, { lineage: 'm', kind: 'workspace', parent: head });
          });
          memRows.push([tree.name, 'workspace from a tar stream', `${tarBytes} B`, pct(tarBytes), s(tarTime)]);
        } finally {
          writeFileSync(join(tree.dir, 'memories/MEMORY.md'), original);
        }
      }
    }
    process.stdout.write(`Bytes a snapshot adds to the store (every blob and manifest it writes: layer, tree index, manifest; targets: one memory-only snapshot ≤ 0.05 %, ${memRuns} ≤ ${memRuns / 20} %)\n${table(memRows)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await snapshotBench({ quick: process.argv.includes('--quick') });
}
