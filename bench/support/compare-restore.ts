/**
 * Before/after comparison of restore times: a baseline checkout of mnemara (e.g. `git archive HEAD~3 src package.json
 * tsconfig.json | tar -x -C /tmp/base`, with `node_modules` linked in) against this tree and `tar -xzf`, alternated in
 * one process, every restore into a new directory (nothing deleted until the end: see MACHINE-NOTES about this disk).
 * Usage: `npx tsx bench/support/compare-restore.ts /tmp/base [runs]`. Not part of `npm run bench` (it needs a second checkout).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { openStore as openNew } from '../../src/snapshot/index.js';
import { generateTree } from './gen-tree.js';
import { median, table, timeMs } from './stats.js';

const sh = promisify(execFile);
const baseDir = process.argv[2];
if (!baseDir) throw new Error('usage: compare-restore.ts <baseline checkout> [runs]');
const { openStore: openOld } = (await import(pathToFileURL(resolve(baseDir, 'src/snapshot/index.ts')).href)) as { openStore: typeof openNew };

const gen = join(tmpdir(), 'mnemara-bench-tree-v1');
generateTree(gen);
const work = mkdtempSync(join(tmpdir(), 'cmp-restore-'));
const runs = Number(process.argv[4] ?? process.argv[3] ?? 3);
const trees = [{ name: 'generated', dir: gen }, { name: 'node_modules', dir: resolve('node_modules') }];
try {
  const rows = [['tree', 'tar -xzf', 'before', 'after', 'before/tar', 'after/tar', 'after/before']];
  for (const tree of trees) {
    const store = await openNew(join(work, `store-${tree.name}`));
    const { id } = await store.create({ dir: tree.dir }, { lineage: 'bench', kind: 'workspace', parent: null });
    const archive = join(work, `${tree.name}.tgz`);
    await sh('tar', ['-czf', archive, '-C', tree.dir, '.']);
    const old = await openOld(store.root);
    const t: Record<string, number[]> = { tar: [], old: [], new: [] };
    const fresh = (tag: string): string => join(mkdtempSync(join(work, `${tag}-`)), 'out');
    const steps: Record<string, () => Promise<unknown>> = {
      tar: async () => { const out = fresh('tar'); mkdirSync(out); return timeMs(() => sh('tar', ['-xzf', archive, '-C', out])).then((ms) => t.tar!.push(ms)); },
      old: async () => { const out = fresh('old'); return timeMs(() => old.restoreToDirectory(id, out)).then((ms) => t.old!.push(ms)); },
      new: async () => { const out = fresh('new'); return timeMs(() => store.restoreToDirectory(id, out)).then((ms) => t.new!.push(ms)); },
    };
    const orders = [['tar', 'old', 'new'], ['new', 'old', 'tar'], ['old', 'new', 'tar']];
    for (let i = 0; i < runs; i++) for (const k of orders[i % orders.length]!) await steps[k]!();
    const [x, o, n] = [median(t.tar!), median(t.old!), median(t.new!)];
    const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
    rows.push([tree.name, s(x), s(o), s(n), (o / x).toFixed(2), (n / x).toFixed(2), (n / o).toFixed(2)]);
  }
  process.stdout.write(`restore, medians of ${runs} alternated runs, into fresh directories\n${table(rows)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
