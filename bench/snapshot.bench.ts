/**
 * Snapshot store (issue 3): pack time against `tar -czf` and restore time against `tar -xzf`, side by side
 * in one run (alternating, medians of several runs), on a generated ~100 MB / 10,000-file tree and on this
 * project's node_modules; the codec/level choice (gzip 1 vs 6, and `tar | zstd -1` for reference); and the
 * bytes a second snapshot adds when only `memories/` changed, as % of the tree, and how long that takes
 * (the parent's tree comes from its tree index; unchanged host files are not re-read). Every restore and extract goes
 * into a directory never used before, and nothing is deleted until the end (see shared/MACHINE-NOTES.md:
 * creating files right after deleting a copy is ~10× slower here). `npm run bench -- snapshot [--quick]`.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../src/config/version.js';
import { openStore } from '../src/snapshot/index.js';
import { generateTree } from './support/gen-tree.js';
import { median, table, timeMs } from './support/stats.js';

const sh = promisify(execFile);
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;

async function treeBytes(dir: string): Promise<{ bytes: number; files: number }> {
  const { stdout } = await sh('bash', ['-c', `find "${dir}" -type f -printf '%s\\n' | awk '{s+=$1; n++} END {print s, n}'`]);
  const [bytes, files] = stdout.trim().split(' ').map(Number);
  return { bytes: bytes!, files: files! };
}

export default async function snapshotBench(opts: { quick: boolean }): Promise<void> {
  const runs = opts.quick ? 2 : 5;
  const work = mkdtempSync(join(tmpdir(), 'mnemara-bench-snapshot-'));
  const genDir = join(tmpdir(), 'mnemara-bench-tree-v1');
  generateTree(genDir);
  const trees = [
    { name: 'generated', dir: genDir },
    { name: 'node_modules', dir: join(PACKAGE_ROOT, 'node_modules') },
  ];
  const fresh = (tag: string): string => join(mkdtempSync(join(work, `${tag}-`)), 'out');
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
    process.stdout.write(`Pack and restore, medians of ${runs} runs (ratio = mnemara / tar; < 1 is faster); into fresh directories\n${table(rows)}\n\n`);

    // Codec choice, measured on the generated tree.
    const codecRows: string[][] = [['codec', 'pack (median)', 'stored', 'vs gzip 6 time']];
    const codecRuns = opts.quick ? 1 : 3;
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

    // Second snapshot when only memories/ changed.
    const memRows: string[][] = [['tree', 'second snapshot', 'bytes added', '% of tree', 'time']];
    for (const tree of trees) {
      const store = await openStore(join(work, `mem-${tree.name}`));
      const { bytes } = await treeBytes(tree.dir);
      const first = await store.create({ dir: tree.dir }, { lineage: 'm', kind: 'workspace' });
      await store.advanceHead('m', null, first.id);
      const layout = join(work, `layout-${tree.name}`);
      mkdirSync(join(layout, 'memories/rollout_summaries'), { recursive: true });
      mkdirSync(join(layout, 'sessions'), { recursive: true });
      if (existsSync(join(tree.dir, 'memories'))) cpSync(join(tree.dir, 'memories'), join(layout, 'memories'), { recursive: true });
      if (existsSync(join(tree.dir, 'sessions'))) cpSync(join(tree.dir, 'sessions'), join(layout, 'sessions'), { recursive: true });
      const memPath = join(layout, 'memories/MEMORY.md');
      writeFileSync(memPath, `${existsSync(memPath) ? readFileSync(memPath, 'utf8') : '# Memory\n'}- cache the build between runs (r2)\n`);
      writeFileSync(join(layout, 'memories/rollout_summaries/r2.md'), '# r2\nTask: speed up the build. Outcome: success.\n');
      writeFileSync(join(layout, 'sessions/r2.jsonl'), `${JSON.stringify({ type: 'session_meta', rolloutId: 'r2' })}\n`);
      const added = async (fn: () => Promise<{ id: string; layers: { compressedBytes: number }[] }>): Promise<[number, number]> => {
        let m: { id: string; layers: { compressedBytes: number }[] } | undefined;
        const t = await timeMs(async () => (m = await fn()));
        const manifestBytes = statSync(store.manifests.pathOf(m!.id)).size;
        return [m!.layers[m!.layers.length - 1]!.compressedBytes + manifestBytes, t];
      };
      const [memBytes, memTime] = await added(() =>
        store.create({ dir: layout }, { lineage: 'm', kind: 'memory', parent: first.id, scope: ['memories', 'sessions'] }),
      );
      memRows.push([tree.name, 'memory (memories/ + sessions/ only)', `${memBytes} B`, `${((memBytes / bytes) * 100).toFixed(4)} %`, s(memTime)]);
      if (tree.name === 'generated') {
        // The whole tree again, with only memories/ changed: hashes everything, stores only the change.
        const original = readFileSync(join(tree.dir, 'memories/MEMORY.md'));
        writeFileSync(join(tree.dir, 'memories/MEMORY.md'), readFileSync(memPath));
        try {
          const [wsBytes, wsTime] = await added(() => store.create({ dir: tree.dir }, { lineage: 'm', kind: 'workspace', parent: first.id }));
          memRows.push([tree.name, 'workspace (whole tree walked)', `${wsBytes} B`, `${((wsBytes / bytes) * 100).toFixed(4)} %`, s(wsTime)]);
          // The same from a tar stream (how a session snapshots a sandbox): every byte is read and hashed,
          // but the parent's tree still comes from its index, not from its layers.
          const [tarBytes, tarTime] = await added(async () => {
            // Piped at once: Node discards a child's stdout that nobody has started reading when the child exits.
            const tar = spawn('tar', ['-cf', '-', '-C', tree.dir, '.'], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout.pipe(new PassThrough());
            return store.create({ tar }, { lineage: 'm', kind: 'workspace', parent: first.id });
          });
          memRows.push([tree.name, 'workspace from a tar stream', `${tarBytes} B`, `${((tarBytes / bytes) * 100).toFixed(4)} %`, s(tarTime)]);
        } finally {
          writeFileSync(join(tree.dir, 'memories/MEMORY.md'), original);
        }
      }
    }
    process.stdout.write(`Bytes added to the store by a second snapshot when only memories/ changed (layer blob + manifest)\n${table(memRows)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await snapshotBench({ quick: process.argv.includes('--quick') });
}
