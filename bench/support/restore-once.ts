/**
 * One restore in a process of its own, for before/after comparisons of two checkouts on the same store:
 * `npx tsx bench/support/restore-once.ts <checkout> <store> <snapshot-id> <new dir>` prints the restore's wall
 * time (ms) and its CPU (user and system seconds, all threads; the start of the process, tsx's included, apart),
 * and the main thread's own CPU (from /proc: the parse, guard and tree work the writer and inflate threads do not take).
 * Used by `compare-restore-real.sh`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, storeDir, id, out] = process.argv.slice(2);
if (!checkout || !storeDir || !id || !out) throw new Error('usage: restore-once.ts <checkout> <store> <snapshot-id> <new dir>');
const { openStore } = (await import(pathToFileURL(resolve(checkout, 'src/snapshot/index.ts')).href)) as typeof import('../../src/snapshot/index.js');
const store = await openStore(storeDir);
/** User + system seconds of the main thread alone (its task's stat: fields 14 and 15, in clock ticks of 1/100 s). */
const mainThreadCpu = (): number => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const startup = process.cpuUsage();
const mainBefore = mainThreadCpu();
const started = Date.now();
await store.restoreToDirectory(id, out);
const cpu = process.cpuUsage(startup);
const sec = (us: number): string => (us / 1e6).toFixed(2);
const main = (mainThreadCpu() - mainBefore).toFixed(2);
process.stdout.write(`restore ${Date.now() - started} ms user ${sec(cpu.user)} sys ${sec(cpu.system)} main thread ${main} (process start ${sec(startup.user + startup.system)} s CPU)\n`);
