/**
 * Subset export against the whole export of the same snapshot, measured in the same run (issue 15): a
 * session sends `memories/` (or the paths a cached volume lacks) with `exportTar(id, { paths })`, which reads only
 * the layers that carry those paths. Alone: `NODE_OPTIONS=--expose-gc npx tsx bench/support/export-subset.ts [runs]`
 * (a generated ~200 MB / 15,000-file tree as the base snapshot, 3 memory-only snapshots on it, then a workspace
 * snapshot of the tree with memories/ changed; medians of `runs`, default 7, alternating which goes first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { openStore, type DirectoryStore } from '../../src/snapshot/index.js';
import { generateTree } from './gen-tree.js';
import { median, table, timeMs } from './stats.js';
import { memoryLayout } from './store-growth.js';

/** Drains an export, counting its bytes. */
async function drain(store: DirectoryStore, id: string, paths?: string[]): Promise<number> {
  let n = 0;
  await pipeline(await store.exportTar(id, paths ? { paths } : {}), new Writable({ write: (c: Buffer, _e, cb) => ((n += c.length), cb()) }));
  return n;
}

/** Medians (ms) of the subset export of `paths` and of the whole export of snapshot `id`, and their tar sizes (bytes). */
export async function measureSubsetExport(store: DirectoryStore, id: string, paths: string[], runs: number): Promise<{ subsetMs: number; wholeMs: number; subsetBytes: number; wholeBytes: number }> {
  const subset: number[] = [];
  const whole: number[] = [];
  let subsetBytes = 0;
  let wholeBytes = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < runs; i++) {
    const pair = [
      async () => subset.push(await timeMs(async () => (subsetBytes = await drain(store, id, paths)))),
      async () => whole.push(await timeMs(async () => (wholeBytes = await drain(store, id)))),
    ];
    for (const step of i % 2 ? pair.reverse() : pair) {
      gc?.();
      await step();
    }
  }
  return { subsetMs: median(subset), wholeMs: median(whole), subsetBytes, wholeBytes };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const runs = Number(process.argv[2] ?? 7);
  const tree = join(tmpdir(), 'mnemara-bench-tree-200m-15k');
  generateTree(tree, 15_000, 200 * 1024 * 1024);
  const work = mkdtempSync(join(tmpdir(), 'mnemara-bench-export-subset-'));
  try {
    const store = await openStore(join(work, 'store'));
    let head = (await store.create({ dir: tree }, { lineage: 'b', kind: 'workspace' })).id;
    await store.advanceHead('b', null, head);
    const layout = memoryLayout(tree, join(work, 'layout'));
    for (let run = 1; run <= 3; run++) {
      layout.bump(run);
      const id = (await store.create({ dir: layout.dir }, { lineage: 'b', kind: 'memory', scope: ['memories', 'sessions'] })).id;
      await store.advanceHead('b', head, id);
      head = id;
    }
    const m = await store.get(head);
    const mb = (n: number): string => `${(n / 1024 ** 2).toFixed(1)} MB`;
    const rows = [['export', 'tar bytes', 'time', 'whole export, same run', 'ratio']];
    const cases: Array<[string, string[]]> = [
      ['what the 3 memory-only snapshots changed (a cached volume brought to the head)', ['memories/MEMORY.md', 'memories/rollout_summaries', 'sessions/r1.jsonl', 'sessions/r2.jsonl', 'sessions/r3.jsonl']],
      ['memories/ (memory_summary.md is still the base layer\'s: the base is read)', ['memories']],
    ];
    for (const [name, paths] of cases) {
      const r = await measureSubsetExport(store, head, paths, runs);
      rows.push([name, `${r.subsetBytes} B of ${mb(r.wholeBytes)}`, `${r.subsetMs.toFixed(0)} ms`, `${r.wholeMs.toFixed(0)} ms`, (r.subsetMs / r.wholeMs).toFixed(3)]);
    }
    process.stdout.write(`Subset export of one snapshot (${m.layers.length} layers: the tree, then memory-only deltas), medians of ${runs}\n${table(rows)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
