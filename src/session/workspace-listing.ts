import type { Sandbox } from '../sandbox/types.js';
import { PATH_MAX } from '../snapshot/limits.js';
import { decodeName } from '../snapshot/names.js';

/**
 * The longest path relative to `workspaceDir` (bytes) that a process in the sandbox can name: `workspaceDir/path`
 * and its NUL must fit in PATH_MAX. Docker's archive API leaves anything longer out of its stream without a word,
 * and tar cannot stat it, so both the whole stream and the changes list such paths in `skipped` instead
 * (`/workspace` → 4084).
 */
export function readablePathBytes(workspaceDir: string): number {
  return PATH_MAX - 1 - Buffer.byteLength(`${workspaceDir.replace(/\/+$/, '')}/`);
}

/**
 * One entry of a workspace listing taken inside the sandbox by `find -printf` (see `LISTING_SCRIPT`).
 * `type` is find's `%y` letter: `f` file, `d` directory, `l` symlink, `p` FIFO, `s` socket, `c`/`b` device.
 */
export interface ListedEntry {
  type: string;
  /** Permission bits (octal, as find prints them, incl. setuid/setgid/sticky). */
  mode: string;
  inode: string;
  /** Bytes (a symlink: the length of its target). */
  size: number;
  /** Change time as find prints it: seconds since the epoch with a 10-digit fraction. */
  ctime: string;
}

/**
 * The workspace as the sandbox saw it at one moment: every path (relative to /workspace, names as bytes
 * escaped by `names.ts`, so non-UTF-8 names stay apart) with what the agent cannot forge without moving ctime.
 * mtime is left out on purpose: `touch -d` sets it to anything, while any write, chmod, rename or link count
 * change moves ctime to the kernel's clock, which a process without CAP_SYS_TIME cannot set.
 */
export interface WorkspaceListing {
  /** The sandbox clock (seconds) just before the walk began. */
  takenAt: number;
  entries: Map<string, ListedEntry>;
}

/**
 * `date` first (the clock the ctimes are compared with), then one NUL-terminated record per path. The walk
 * runs as the sandbox user: a directory it cannot read makes find exit non-zero and the listing is refused.
 * The trailing pause (baseline only) puts every later write in a later clock tick than any ctime listed, so a
 * same-size rewrite right after the listing cannot share a ctime with the restored file: 50 ms covers the
 * kernel's coarse clock (a jiffy); a filesystem that keeps whole seconds only (ext4 with 128-byte inodes, as
 * mkfs makes on a small quota disk: the root's ctime has no fraction) waits for the next second.
 */
const LISTING_SCRIPT = [
  'cd "$1" || exit 3',
  "printf '%s\\0' \"$(date +%s.%N)\"",
  "find . -printf '%y %m %i %s %C@ %P\\0'",
  'status=$?',
  'if [ "$2" = pause ]; then',
  "  frac=$(find . -maxdepth 0 -printf '%C@'); frac=${frac#*.}",
  '  if [ -z "${frac//0/}" ]; then s=$(date +%s); while [ "$(date +%s)" = "$s" ]; do sleep 0.05; done; else sleep 0.05; fi',
  'fi',
  'exit $status',
].join('\n');

/** Listing output above this is refused (the listing is then not used): ~2.5 million paths. */
const MAX_LISTING_BYTES = 256 * 1024 * 1024;

/** Why a listing could not be taken; the session then reads the whole workspace stream. */
export class ListingUnavailable extends Error {}

/**
 * Lists the sandbox's workspace (see `WorkspaceListing`). `pause`: wait one clock tick after the walk (for the
 * baseline taken right after the restore). Throws `ListingUnavailable` saying why when the sandbox cannot list
 * raw bytes (the local sandbox), find failed, the output was too large, or a record does not parse.
 */
export async function listWorkspace(sandbox: Sandbox, options: { pause?: boolean } = {}): Promise<WorkspaceListing> {
  if (!sandbox.execBytes) throw new ListingUnavailable(`the ${sandbox.kind} sandbox cannot list raw names`);
  const r = await sandbox.execBytes(['bash', '-c', LISTING_SCRIPT, 'mnemara-list', sandbox.workspaceDir, options.pause ? 'pause' : ''], {
    maxOutputBytes: MAX_LISTING_BYTES,
    timeoutMs: 10 * 60_000,
  });
  if (r.truncated) throw new ListingUnavailable(`the listing is over ${MAX_LISTING_BYTES} bytes`);
  if (r.exitCode !== 0) throw new ListingUnavailable(`find exited ${r.exitCode}: ${r.stderr.trim().slice(0, 300)}`);
  return parseListing(r.stdout);
}

/** Parses `LISTING_SCRIPT`'s output. Throws `ListingUnavailable` naming the first record that does not parse. */
export function parseListing(out: Buffer): WorkspaceListing {
  const entries = new Map<string, ListedEntry>();
  let start = 0;
  let takenAt: number | undefined;
  while (start < out.length) {
    const end = out.indexOf(0, start);
    if (end < 0) throw new ListingUnavailable('the listing ends inside a record');
    const record = out.subarray(start, end);
    start = end + 1;
    if (takenAt === undefined) {
      takenAt = Number(record.toString('latin1'));
      if (!Number.isFinite(takenAt)) throw new ListingUnavailable('the listing does not start with the sandbox clock');
      continue;
    }
    // Five space-separated fields, then the path (which may itself hold spaces, newlines, any byte but NUL).
    let at = 0;
    const fields: string[] = [];
    for (let k = 0; k < 5; k++) {
      const sp = record.indexOf(0x20, at);
      if (sp < 0) throw new ListingUnavailable(`a listing record does not parse: ${JSON.stringify(record.toString('latin1').slice(0, 80))}`);
      fields.push(record.subarray(at, sp).toString('latin1'));
      at = sp + 1;
    }
    const [type, mode, inode, size, ctime] = fields as [string, string, string, string, string];
    if (!/^[fdlpscbD]$/.test(type) || !/^[0-7]+$/.test(mode) || !/^\d+$/.test(inode) || !/^\d+$/.test(size) || !/^\d+(\.\d+)?$/.test(ctime)) {
      throw new ListingUnavailable(`a listing record does not parse: ${JSON.stringify(record.toString('latin1').slice(0, 80))}`);
    }
    const path = decodeName(record.subarray(at));
    if (entries.has(path)) throw new ListingUnavailable(`the listing names ${JSON.stringify(path)} twice`);
    entries.set(path, { type, mode, inode, size: Number(size), ctime });
  }
  if (takenAt === undefined || !entries.has('')) throw new ListingUnavailable('the listing lacks the workspace root');
  return { takenAt, entries };
}
