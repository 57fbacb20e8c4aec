import type { Candidate } from './merge.js';

/**
 * "The file is gone" (issue 12, kind 1, read from structure): an entry that names a file of the workspace
 * (`touch database/app.sqlite && … migrate`, "tests read `config/legacy.yml`") is stale when a newer rollout
 * deleted that file and did not make it again (its rollout summary lists it as "path (deleted)"): the
 * repository has moved on, whatever language the run said so in. Preferences are a person's word and stay
 * (only a stated change retires them); the deleting rollout's own entries stay.
 */

/** A newer rollout's evidence: its place (0 = newest) and the workspace files it deleted. */
export interface Deletions {
  order: number;
  deleted?: string[];
}

/** The candidates that name a file a newer rollout deleted, each with that file. */
export function namingDeletedFiles(candidates: Candidate[], runs: Deletions[]): Array<{ stale: Candidate; file: string; order: number }> {
  const out: Array<{ stale: Candidate; file: string; order: number }> = [];
  for (const c of candidates) {
    if (c.kind === 'preference') continue;
    for (const r of runs) {
      if (r.order >= c.order) continue;
      // A path of two parts or more, or a dotted file name, named whole (not `app.sqlite.bak`, not `x/app.sqlite`).
      const file = (r.deleted ?? []).find((f) => (f.includes('/') || /\.\w+$/.test(f)) && new RegExp(`(?<![\\w./-])(?:\\./|/workspace/)?${escapeRe(f)}(?![\\w/-]|\\.\\w)`).test(c.text));
      if (file) {
        out.push({ stale: c, file, order: r.order });
        break;
      }
    }
  }
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
