/**
 * CPU of memory-only snapshots on a large parent, for before/after comparisons of two checkouts on the same
 * store: `npx tsx bench/support/memory-snapshot-cpu.ts <checkout> <store> <parent snapshot-id> [runs]` takes
 * `runs` (default 3) memory snapshots of a tiny layout (`memories/`, `sessions/`) on the parent, each a delta on
 * it in the store's lineage `b`, and prints each one's wall time and CPU (user + system, all threads, ms). On a
 * shared machine the CPU is the comparable number: the wall time follows the load.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, storeDir, parent, runs = '3'] = process.argv.slice(2);
if (!checkout || !storeDir || !parent) throw new Error('usage: memory-snapshot-cpu.ts <checkout> <store> <parent snapshot-id> [runs]');
const { openStore } = (await import(pathToFileURL(resolve(checkout, 'src/snapshot/index.ts')).href)) as typeof import('../../src/snapshot/index.js');
const layout = mkdtempSync(join(tmpdir(), 'mnemara-layout-'));
mkdirSync(join(layout, 'memories'));
mkdirSync(join(layout, 'sessions'));
writeFileSync(join(layout, 'memories/MEMORY.md'), '# Memory\n');
writeFileSync(join(layout, 'sessions/r1.jsonl'), '{}\n');
const store = await openStore(storeDir);
for (let i = 0; i < Number(runs); i++) {
  const wall = Date.now();
  const cpu = process.cpuUsage();
  await store.create({ dir: layout }, { lineage: 'b', kind: 'memory', parent, scope: ['memories', 'sessions'], rolloutIds: ['r1'] });
  const used = process.cpuUsage(cpu);
  process.stdout.write(`memory snapshot ${i + 1}: ${Date.now() - wall} ms wall, ${Math.round((used.user + used.system) / 1000)} ms CPU\n`);
}
