/**
 * Run as a user without root's rights (by `non-root.test.ts`, through setpriv when the suite runs as root):
 * the permission cases of issue 9 that root never meets. Prints one JSON line with what it saw; the test
 * asserts on it. Usage: `node --import tsx test/workspaces/non-root-cases.ts WORKDIR` (WORKDIR writable).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/snapshot/index.js';

const work = process.argv[2]!;
const store = await openStore(join(work, 'store'));

// An unreadable file: left out with a warning naming it, the rest snapshotted.
const locked = join(work, 'locked-src');
mkdirSync(locked);
writeFileSync(join(locked, 'ok.txt'), 'ok');
writeFileSync(join(locked, 'secret'), 'x', { mode: 0o000 });
// A directory that lists but cannot be searched (mode 644): its entries cannot even be stat'ed.
mkdirSync(join(locked, 'noexec'));
writeFileSync(join(locked, 'noexec', 'g'), 'g');
execFileSync('chmod', ['644', join(locked, 'noexec')]);
// A directory that cannot even be listed (mode 0000): what create reports must be what restore brings back.
mkdirSync(join(locked, 'closed'));
writeFileSync(join(locked, 'closed', 'inside'), 'in');
execFileSync('chmod', ['000', join(locked, 'closed')]);
const lockedSnap = await store.create({ dir: locked }, { lineage: 'locked', kind: 'workspace' });

// Restores over a tree with read-only directories: whole, whole, --path of a read-only directory, --path under one.
const ro = join(work, 'ro-src');
mkdirSync(join(ro, 'ro/inner'), { recursive: true });
writeFileSync(join(ro, 'ro/inner/f'), 'f');
execFileSync('chmod', ['0555', join(ro, 'ro/inner'), join(ro, 'ro')]);
const roSnap = await store.create({ dir: ro }, { lineage: 'ro', kind: 'workspace' });
const lockedOut = join(work, 'locked-out');
await store.restoreToDirectory(lockedSnap.id, lockedOut);
const closedMode = (statSync(join(lockedOut, 'closed')).mode & 0o777).toString(8).padStart(3, '0');
execFileSync('chmod', ['700', join(lockedOut, 'closed')]);
const closedEntries = readdirSync(join(lockedOut, 'closed'));
const parent = join(work, 'restores');
mkdirSync(parent);
const target = join(parent, 't');
const errors: string[] = [];
for (const paths of [undefined, undefined, ['ro'], ['ro/inner']]) {
  await store.restoreToDirectory(roSnap.id, target, paths ? { paths } : {}).catch((err: Error) => errors.push(err.message));
}
console.log(
  JSON.stringify({
    uid: process.getuid?.(),
    lockedSkipped: lockedSnap.skipped ?? [],
    lockedRestored: readdirSync(lockedOut).sort(),
    closed: { mode: closedMode, entries: closedEntries },
    restoreErrors: errors,
    parentEntries: readdirSync(parent),
    restored: readFileSync(join(target, 'ro/inner/f'), 'utf8'),
    modes: ['ro', 'ro/inner'].map((p) => (statSync(join(target, p)).mode & 0o777).toString(8)),
  }),
);
execFileSync('chmod', ['755', join(locked, 'noexec'), join(locked, 'closed')]);
// Leave the tree removable by the caller (root removes anything; another user needs write bits back).
execFileSync('chmod', ['-R', 'u+w', work]);
