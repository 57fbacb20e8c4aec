import { TRUSTED_EXIT } from '../phase1/deterministic/exit-zero.js';
import type { Candidate } from './merge.js';

/**
 * "Its exit code can be trusted now" (issue 12, kind 1, read from structure): an older pitfall "`X` exits 0
 * even when tests fail" is stale when a newer rollout printed X's status itself and saw it non-zero on failing
 * tests (phase 1's `TRUSTED_EXIT` fact about the same command X): the script was fixed, whatever language the
 * run said so in. Returns each stale pitfall with the fact that retires it.
 */
export function exitCodesNowTrusted(candidates: Candidate[]): Array<{ stale: Candidate; by: Candidate }> {
  const out: Array<{ stale: Candidate; by: Candidate }> = [];
  const commandOf = (text: string) => /^`([^`]+)`/.exec(text)?.[1]?.trim();
  for (const b of candidates) {
    if (b.kind !== 'pitfall' || !/^`[^`]+` exits 0 even when/.test(b.text)) continue;
    const by = candidates.find((a) => a.kind === 'fact' && a.order < b.order && a.text.includes(`\` ${TRUSTED_EXIT} `) && commandOf(a.text) === commandOf(b.text));
    if (by) out.push({ stale: b, by });
  }
  return out;
}
