/**
 * Which mnemara home a container or volume belongs to. Several homes (`MNEMARA_HOME`, `--home`) may share one
 * Docker engine; each one's doctor, prune and stranded-sandbox rescue must see only its own sandboxes, or one
 * home's `sandbox prune` removes another home's killed session that its `recover` could still save.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { mnemaraHome } from '../../config/paths.js';

/** The labels: `mnemara.home` is the key filters use; `mnemara.home.path` is there for humans (`docker inspect`). */
export const HOME_LABEL = { hash: 'mnemara.home', path: 'mnemara.home.path' } as const;

/**
 * The value of `mnemara.home` for `home` (default: this process's `mnemaraHome()`): the first 16 hex digits of
 * the SHA-256 of its resolved absolute path. Stable across runs; a hash, not the path, because label filters
 * compare whole values and a path may hold characters a filter string cannot.
 */
export function homeLabelValue(home: string = mnemaraHome()): string {
  return createHash('sha256').update(resolve(home)).digest('hex').slice(0, 16);
}

/** Both home labels for `home`, to put on a container and its volume. */
export function homeLabels(home: string = mnemaraHome()): Record<string, string> {
  return { [HOME_LABEL.hash]: homeLabelValue(home), [HOME_LABEL.path]: resolve(home) };
}

/**
 * Whose a labelled object is, seen from `home`: `own` (this home's), `other` (another home's: never touched
 * from here), or `unlabelled` (made by a mnemara older than the home label: it may be anyone's, so it is only
 * listed, and removed only when asked by name of the rule, `--include-unlabelled`).
 */
export type HomeOwnership = 'own' | 'other' | 'unlabelled';

/** Classifies an object by its labels (`undefined`: none) against `home`. */
export function ownershipOf(labels: Record<string, string> | undefined | null, home: string = mnemaraHome()): HomeOwnership {
  const value = labels?.[HOME_LABEL.hash];
  if (!value) return 'unlabelled';
  return value === homeLabelValue(home) ? 'own' : 'other';
}
