import { NOW_ALLOWED } from '../phase1/deterministic/allowed.js';
import type { Candidate } from './merge.js';

/** Words of an entry that forbids what it names. */
const FORBIDDING = /\b(never|not|don't|do not|must not|mustn't|forbidden|not allowed|avoid|no)\b/i;

/**
 * "Now allowed" (issue 12, kind 3, read from structure): an older pitfall or fact that names `X` and forbids
 * something ("Constraint (comment in db/changelog.xml): “never use runOnChange …”") is stale when a newer rollout
 * wrote X into the repository at the user's word (phase 1's "`X` is now allowed here" fact). Preferences are a
 * person's word and stay. Returns each stale entry with the fact that retires it.
 */
export function prohibitionsNowLifted(candidates: Candidate[]): Array<{ stale: Candidate; by: Candidate }> {
  const out: Array<{ stale: Candidate; by: Candidate }> = [];
  for (const by of candidates) {
    const span = by.kind === 'fact' ? new RegExp(`^\`([^\`]+)\` ${NOW_ALLOWED}`).exec(by.text)?.[1] : undefined;
    if (!span) continue;
    const named = new RegExp(`(?<![\\w.-])${span.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`);
    for (const c of candidates) {
      if (c.order > by.order && c.kind !== 'preference' && named.test(c.text) && FORBIDDING.test(c.text)) out.push({ stale: c, by });
    }
  }
  return out;
}
