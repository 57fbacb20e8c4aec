import { nameBytes } from '../snapshot/names.js';
import type { WorkspaceListing } from './workspace-listing.js';

/** What changed in the workspace between two listings, as the delta snapshot needs it. */
export interface WorkspaceChanges {
  /**
   * The fewest paths that cover every change (no path under another): each is taken whole from the sandbox
   * (a directory with all it holds) or, when gone, deleted. The snapshot's `scope`: the rest is inherited.
   */
  scope: string[];
  /** Every path the changes tar holds, parents before children: scope paths, their ancestors, and what new or re-moded directories hold. */
  send: string[];
  /** Scope paths that are gone (they become whiteouts). */
  deleted: number;
  /** Content bytes of the files in `send`. */
  bytes: number;
  /** FIFOs, sockets and devices the agent created (skipped by the snapshot, listed by it). */
  special: string[];
  /**
   * Paths too long to read in the sandbox (`readableBytes`), the topmost of each subtree: not in `send`, so
   * neither they nor what they hold are brought out; the snapshot lists them in `skipped`.
   */
  tooLong: string[];
}

/** Limits past which the changes are not worth taking one by one (the whole stream is read instead). */
export interface ChangeLimits {
  /** Paths in the changes tar; default 50,000. */
  maxEntries: number;
  /** Content bytes in the changes tar; default 64 MiB (it is held in memory once). */
  maxBytes: number;
}

export const DEFAULT_CHANGE_LIMITS: ChangeLimits = { maxEntries: 50_000, maxBytes: 64 * 1024 * 1024 };

/** Either the changes, or why the listings cannot be trusted to give them (the caller reads the whole stream). */
export type ChangeVerdict = { ok: true; changes: WorkspaceChanges } | { ok: false; reason: string };

/**
 * Compares the listing taken right after the restore (`before`) with the one taken at the end of the run
 * (`after`). A path is changed when it is new, gone, of another type, or (not a directory) has another inode,
 * size, mode or ctime; a directory only when its mode changed (its ctime moves whenever an entry is added or
 * removed, which the entries themselves show). Ignored paths (`snapshot.ignore`) are left out.
 *
 * Refuses (`ok: false`) when the listings cannot be trusted: the sandbox clock went back (a later listing, or
 * a path whose ctime is older than at the restore), the workspace root itself changed mode or type, or the
 * change is too large to be worth taking path by path (`limits`). `readableBytes`: the longest relative path (bytes)
 * the sandbox can read (`readablePathBytes`); a longer one is listed in `tooLong` instead of being sent.
 */
export function diffListings(
  before: WorkspaceListing,
  after: WorkspaceListing,
  ignore: (path: string) => boolean,
  limits: ChangeLimits = DEFAULT_CHANGE_LIMITS,
  readableBytes = Number.POSITIVE_INFINITY,
): ChangeVerdict {
  if (after.takenAt < before.takenAt) return { ok: false, reason: `the sandbox clock went back (${before.takenAt} → ${after.takenAt})` };
  const rootBefore = before.entries.get('');
  const rootAfter = after.entries.get('');
  if (!rootBefore || !rootAfter || rootBefore.type !== rootAfter.type || rootBefore.mode !== rootAfter.mode) {
    return { ok: false, reason: 'the workspace root changed type or mode' };
  }
  const ignoredMemo = new Map<string, boolean>();
  const ignored = (path: string): boolean => {
    let known = ignoredMemo.get(path);
    if (known === undefined) {
      const cut = path.lastIndexOf('/');
      known = (cut > 0 && ignored(path.slice(0, cut))) || ignore(path);
      ignoredMemo.set(path, known);
    }
    return known;
  };

  const candidates = new Set<string>();
  for (const [path, b] of after.entries) {
    if (path === '' || ignored(path)) continue;
    const a = before.entries.get(path);
    if (!a || a.type !== b.type) {
      candidates.add(path);
      continue;
    }
    if (b.type === 'd') {
      if (a.mode !== b.mode) candidates.add(path);
      continue;
    }
    if (a.inode === b.inode && a.size === b.size && a.mode === b.mode && a.ctime === b.ctime) continue;
    if (a.inode === b.inode && Number(b.ctime) < Number(a.ctime)) {
      return { ok: false, reason: `the ctime of ${JSON.stringify(path)} went back (${a.ctime} → ${b.ctime}): the sandbox clock cannot be trusted` };
    }
    candidates.add(path);
  }
  let deleted = 0;
  for (const path of before.entries.keys()) {
    if (path !== '' && !after.entries.has(path) && !ignored(path)) candidates.add(path);
  }

  // The fewest covering paths: drop every candidate that lies under another.
  const underScope = (path: string, set: Set<string>): boolean => {
    for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) if (set.has(path.slice(0, cut))) return true;
    return false;
  };
  const scope = [...candidates].filter((p) => !underScope(p, candidates)).sort(byteOrder);
  const scopeSet = new Set(scope);

  const send = new Set<string>();
  const special: string[] = [];
  const tooLong = new Set<string>();
  let bytes = 0;
  const add = (path: string): void => {
    if (send.has(path) || tooLong.has(path)) return;
    if (nameBytes(path) > readableBytes) {
      tooLong.add(path); // what lies under it is too long as well: only the topmost are reported (below)
      return;
    }
    const e = after.entries.get(path)!;
    send.add(path);
    if (e.type === 'f') bytes += e.size;
    if (e.type === 'p' || e.type === 's' || e.type === 'c' || e.type === 'b') special.push(path);
  };
  for (const path of scope) {
    if (!after.entries.has(path)) {
      deleted += 1;
      continue;
    }
    for (let cut = path.indexOf('/'); cut > 0; cut = path.indexOf('/', cut + 1)) add(path.slice(0, cut));
    add(path);
  }
  // Everything a new or re-moded directory holds goes along (the snapshot walks it whole).
  const dirScopes = new Set(scope.filter((p) => after.entries.get(p)?.type === 'd'));
  if (dirScopes.size > 0) {
    for (const path of after.entries.keys()) if (path !== '' && !ignored(path) && underScope(path, dirScopes)) add(path);
  }
  if (send.size > limits.maxEntries) return { ok: false, reason: `${send.size} changed paths, over ${limits.maxEntries}` };
  if (bytes > limits.maxBytes) return { ok: false, reason: `${bytes} changed bytes, over ${limits.maxBytes}` };
  const topmost = [...tooLong].filter((p) => !underScope(p, tooLong)).sort(byteOrder);
  return { ok: true, changes: { scope, send: [...send].sort(byteOrder), deleted, bytes, special: special.sort(byteOrder), tooLong: topmost } };
}

/** Parents before children: a path sorts before every path under it when `/` sorts before every other byte. */
function byteOrder(a: string, b: string): number {
  const x = a.replaceAll('/', '\u0000');
  const y = b.replaceAll('/', '\u0000');
  return x < y ? -1 : x > y ? 1 : 0;
}
