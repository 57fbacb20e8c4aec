import { Readable } from 'node:stream';
import type { Sandbox } from '../sandbox/types.js';
import { encodeName } from '../snapshot/names.js';
import type { CreateSnapshotOptions, Manifest, SnapshotStore } from '../snapshot/types.js';
import type { WorkspaceChanges } from './workspace-changes.js';

/** Why the changes could not be brought out of the sandbox (the caller reads the whole stream instead). */
export class ChangesUnavailable extends Error {}

/** Two zero blocks: the end of an empty tar (a run that only deleted has nothing to send). */
const EMPTY_TAR = Buffer.alloc(1024);

/**
 * GNU tar inside the sandbox, as the sandbox user, over exactly the listed paths (`--no-recursion`), names
 * NUL-separated and taken verbatim (a name starting with `-` is a name). Hard links stay links: a link shares
 * its inode's ctime, so every path of a changed inode is listed and sent, and tar links the later ones to the first. A file that changes while read makes tar exit 1 and the changes are refused.
 */
const TAR_ARGV = ['tar', '-c', '-f', '-', '--null', '--verbatim-files-from', '--no-recursion', '--numeric-owner', '-T', '-'];

/** What `snapshotChanges` spent, ms: bringing the changes tar out, and packing it into the delta layer. */
export interface ChangeTimings {
  transferOutMs: number;
  packMs: number;
}

/**
 * Step 6 for a run whose changes are known (`diffListings`): brings only `changes.send` out of the sandbox as
 * one tar and packs it as a delta on `options.parent` with `changes.scope` as the snapshot's scope, so every
 * other path is inherited from the parent as it is and every scope path that is gone becomes a whiteout. The
 * store guards the tar like any other (names byte for byte, FIFOs and devices skipped and listed, links as
 * data, size and entry limits). Throws `ChangesUnavailable` when the sandbox cannot produce the tar (tar
 * failed, output larger than the listing said); the store's own errors otherwise.
 */
export async function snapshotChanges(
  sandbox: Sandbox,
  store: SnapshotStore,
  changes: WorkspaceChanges,
  options: CreateSnapshotOptions & { parent: string },
  timings?: ChangeTimings,
): Promise<Manifest> {
  const started = Date.now();
  let tar: Buffer = EMPTY_TAR;
  if (changes.send.length > 0) {
    if (!sandbox.execBytes) throw new ChangesUnavailable(`the ${sandbox.kind} sandbox cannot stream raw bytes`);
    const list = Buffer.concat(changes.send.flatMap((p) => [Buffer.from('./'), encodeName(p), Buffer.from([0])]));
    // Headers (long names take extra blocks), content rounded up to blocks, and the end blocks.
    const bound = Math.ceil(changes.bytes * 1.01) + changes.send.length * 4096 + 64 * 1024;
    const r = await sandbox.execBytes(TAR_ARGV, { stdin: list, maxOutputBytes: bound, cwd: sandbox.workspaceDir, timeoutMs: 10 * 60_000 });
    if (r.truncated) throw new ChangesUnavailable(`the changes tar is larger than the ${changes.bytes} bytes listed (a file grew meanwhile)`);
    if (r.exitCode !== 0) throw new ChangesUnavailable(`tar exited ${r.exitCode}: ${r.stderr.trim().slice(0, 300)}`);
    tar = r.stdout;
  }
  const packStarted = Date.now();
  const manifest = await store.create({ tar: Readable.from([tar]) }, { ...options, scope: changes.scope });
  if (timings) {
    timings.transferOutMs = packStarted - started;
    timings.packMs = Date.now() - packStarted;
  }
  return manifest;
}
