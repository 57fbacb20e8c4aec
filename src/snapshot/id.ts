import { randomBytes } from 'node:crypto';

let last = '';
let seq = 0;

/**
 * A new time-sortable snapshot id: `YYYYMMDDTHHMMSSmmmZ-<seq 4 hex><random 4 hex>`, e.g.
 * `20261129T173000123Z-0000a1b2`. Lexicographic order is creation order within one process
 * (a counter breaks ties in the same millisecond); across processes ties break randomly.
 */
export function newSnapshotId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  seq = stamp === last ? seq + 1 : 0;
  last = stamp;
  return `${stamp}-${seq.toString(16).padStart(4, '0')}${randomBytes(2).toString('hex')}`;
}

/** Ids this store accepts (also what keeps an id from naming a path outside `snapshots/`). */
export const SNAPSHOT_ID_RE = /^[0-9]{8}T[0-9]{9}Z-[0-9a-f]{8}$/;

/** Lineage names: `/`-separated segments of `[A-Za-z0-9._-]`, no `.`-leading segment, at most 200 bytes. */
export function isValidLineage(name: string): boolean {
  if (name.length === 0 || name.length > 200) return false;
  return name
    .split('/')
    .every((seg) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(seg) && !seg.endsWith('.lock') && !seg.endsWith('.tmp'));
}
