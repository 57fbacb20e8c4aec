/**
 * One restore in a process of its own, for before/after comparisons of two checkouts on the same store:
 * `npx tsx bench/support/restore-once.ts <checkout> <store> <snapshot-id> <new dir>` prints the restore's wall
 * time (ms) and its CPU (user and system seconds, all threads; the start of the process, tsx's included, apart).
 * Used by `compare-restore-real.sh`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, storeDir, id, out] = process.argv.slice(2);
if (!checkout || !storeDir || !id || !out) throw new Error('usage: restore-once.ts <checkout> <store> <snapshot-id> <new dir>');
const { openStore } = (await import(pathToFileURL(resolve(checkout, 'src/snapshot/index.ts')).href)) as typeof import('../../src/snapshot/index.js');
const store = await openStore(storeDir);
const startup = process.cpuUsage();
const started = Date.now();
await store.restoreToDirectory(id, out);
const cpu = process.cpuUsage(startup);
const sec = (us: number): string => (us / 1e6).toFixed(2);
process.stdout.write(`restore ${Date.now() - started} ms user ${sec(cpu.user)} sys ${sec(cpu.system)} (process start ${sec(startup.user + startup.system)} s CPU)\n`);
