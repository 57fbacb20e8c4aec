/**
 * Before/after comparison of snapshot create times: a baseline checkout of mnemara (e.g. `git archive HEAD~3 | tar -x -C /tmp/base`,
 * with `node_modules` linked in) against this tree, alternated in one process, medians. Steps: full pack of the generated tree,
 * a memory snapshot on it, a workspace snapshot of the unchanged tree, from the host dir and from a tar stream. Usage: `npx tsx bench/support/compare-snapshot.ts /tmp/base [runs]`.
 * Not part of `npm run bench` (it needs a second checkout).
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { openStore as openNew } from '../../src/snapshot/index.js';
import { generateTree } from './gen-tree.js';
import { median, table, timeMs } from './stats.js';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const baseDir = process.argv[2];
if (!baseDir) throw new Error('usage: compare-snapshot.ts <baseline checkout> [runs]');
const { openStore: openOld } = (await import(pathToFileURL(resolve(baseDir, 'src/snapshot/index.ts')).href)) as { openStore: typeof openNew };

const gen = join(tmpdir(), 'mnemara-bench-tree-v1');
generateTree(gen);
const work = mkdtempSync(join(tmpdir(), 'cmp-snap-'));
const runs = Number(process.argv[3] ?? 3);
const t: Record<string, Record<string, number[]>> = {};
const rec = (k: string, who: string, ms: number) => (((t[k] ??= {})[who] ??= []).push(ms));
const mem = join(gen, 'memories/MEMORY.md');
const orig = readFileSync(mem);
try {
  for (let i = 0; i < runs; i++) {
    for (const [who, open] of (i % 2 ? [['new', openNew], ['old', openOld]] : [['old', openOld], ['new', openNew]]) as Array<[string, typeof openNew]>) {
      const store = await open(join(work, `${who}-${i}`));
      let first = '';
      rec('full pack', who, await timeMs(async () => { first = (await store.create({ dir: gen }, { lineage: 'l', kind: 'workspace' })).id; }));
      await store.advanceHead('l', null, first);
      writeFileSync(mem, `${orig}\n- run ${i} ${who}\n`);
      let second = '';
      rec('memory snapshot (scoped delta)', who, await timeMs(async () => { second = (await store.create({ dir: gen }, { lineage: 'l', kind: 'memory', scope: ['memories', 'sessions'] })).id; }));
      await store.advanceHead('l', first, second);
      let third = '';
      rec('workspace snapshot, tree unchanged', who, await timeMs(async () => { third = (await store.create({ dir: gen }, { lineage: 'l', kind: 'workspace' })).id; }));
      await store.advanceHead('l', second, third);
      // The session's path: the same unchanged tree as a tar stream (piped at once: Node drops an unread child stdout on exit).
      rec('workspace from a tar stream, tree unchanged', who, await timeMs(async () => {
        const tar = spawn('tar', ['-cf', '-', '-C', gen, '.'], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout.pipe(new PassThrough());
        await store.create({ tar }, { lineage: 'l', kind: 'workspace', parent: third });
      }));
      writeFileSync(mem, orig);
    }
  }
  const rows = [['step', 'before (baseline)', 'after', 'ratio after/before']];
  for (const [k, v] of Object.entries(t)) rows.push([k, `${(median(v.old!) / 1000).toFixed(2)} s`, `${(median(v.new!) / 1000).toFixed(2)} s`, (median(v.new!) / median(v.old!)).toFixed(2)]);
  process.stdout.write(`generated tree, medians of ${runs} alternated runs\n${table(rows)}\n`);
} finally {
  writeFileSync(mem, orig);
  rmSync(work, { recursive: true, force: true });
}
