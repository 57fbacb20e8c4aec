import { randomBytes } from 'node:crypto';

/**
 * A new rollout id: `YYYYMMDDTHHMMSSmmmZ-<10 hex>` in UTC, e.g. `20261129T173000123Z-4f9c2a7e1b`.
 * Ids sort by start time as plain strings (fixed width, most significant first); the random tail keeps
 * two runs started in the same millisecond apart. Safe as a file name on every platform.
 */
export function newRolloutId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2026-11-29T17:30:00.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${iso.slice(20, 23)}Z`;
  return `${stamp}-${randomBytes(5).toString('hex')}`;
}

/** The shape {@link newRolloutId} produces; importers and readers use it to tell ours from foreign ids. */
export const ROLLOUT_ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{10}$/;

/** Ids that end up in file names must be plain: letters, digits, `._-`, 1–128 chars, no leading dot. */
export function isSafeId(id: string): boolean {
  return /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(id);
}
