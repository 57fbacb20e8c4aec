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

/**
 * Lineage names: `/`-separated segments of `[A-Za-z0-9._-]`, no `.`-leading segment, not starting with `-` (a
 * lineage `-rf` was made, and `lineage show -rf` then read it as an option: trial 23 F16), at most 200 bytes.
 */
export function isValidLineage(name: string): boolean {
  if (name.length === 0 || name.length > 200 || name.startsWith('-')) return false;
  return name
    .split('/')
    .every((seg) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(seg) && !seg.endsWith('.lock') && !seg.endsWith('.tmp'));
}

/**
 * Branch names (DESIGN.md, "branch"): `LINEAGE@NAME`, a valid lineage, `@`, then one segment of `[A-Za-z0-9._-]`
 * (1–128 chars, no leading `.`, not ending in `.lock`/`.tmp`), e.g. `ci/main@20261201T120000000Z-4f9c2a7e1b`.
 */
export function isValidBranch(name: string): boolean {
  const at = name.lastIndexOf('@');
  if (at <= 0) return false;
  const suffix = name.slice(at + 1);
  return (
    isValidLineage(name.slice(0, at)) &&
    /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(suffix) &&
    !suffix.endsWith('.lock') &&
    !suffix.endsWith('.tmp')
  );
}

/** The lineage a branch belongs to (`ci/main@x` → `ci/main`). */
export function lineageOfBranch(branch: string): string {
  return branch.slice(0, branch.lastIndexOf('@'));
}

/** The branches of `all` (name → snapshot id) that belong to `lineage`; all of them when it is undefined. */
export function branchesOf(all: Record<string, string>, lineage?: string): Record<string, string> {
  if (lineage === undefined) return all;
  return Object.fromEntries(Object.entries(all).filter(([name]) => lineageOfBranch(name) === lineage));
}
