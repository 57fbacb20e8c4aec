import type { RawMemory } from '../../types.js';
import { staleTerms } from '../../phase2/supersede.js';
import { lastAssistantText } from '../findings.js';
import type { RolloutView } from '../rollout.js';
import { CHANGED, ONE_OFF, clauses } from './durable.js';
import { dependencySwitches } from './dependency-switch.js';
import { clip, keywordsOf } from './text.js';

/**
 * Statements that the repository changed (issue 12): "we migrated from npm to pnpm", "数据库已经从 PostgreSQL
 * 迁移到 MySQL", "von flake8 auf ruff umgestellt", "the specs no longer need Postgres". Each is a fact of
 * importance 5, and phase 2 retires older entries that name what changed (`supersede.ts`), preferences and
 * a person's entries included. Read from what the user typed (the task and mid-run messages: any `CHANGED`
 * clause) and from the agent's final message (only a clause naming both sides, "from X to Y": the agent also
 * says "I changed the test to …", which is this run's work, not a change of the repository's stack).
 */
export function repositoryChanges(view: RolloutView): RawMemory[] {
  const out: RawMemory[] = [];
  const users = view.said.filter((s) => s.role === 'user');
  for (const [i, s] of users.entries()) {
    const kept = changeClauses(s.text);
    if (kept.length === 0) continue;
    const said = kept.join(' ');
    out.push(fact(i === 0 ? `The task states that the repository changed: “${clip(said, 600)}”` : `The user said the repository changed: “${clip(said, 600)}”`, s.line, said));
  }
  const final = lastAssistantText(view);
  if (final) {
    const known = new Set(out.flatMap((m) => staleTerms(m.text).map((t) => t.term.toLowerCase())));
    const kept = clauses(final.text).filter((c) => CHANGED.test(c) && staleTerms(c).some((t) => t.replacement && !known.has(t.term.toLowerCase())));
    if (kept.length) out.push(fact(`The agent's final message says the repository changed: “${clip(kept.join(' '), 400)}”`, final.line, kept.join(' ')));
  }
  // A switch of libraries the run made itself, known by the manifest and not by the wording (`dependency-switch.ts`).
  if (!out.some((m) => m.text.startsWith("The agent's final message"))) {
    const switched = dependencySwitches(view).map((s) => s.text);
    const said = switched.join(' ');
    if (said) out.push(fact(`The agent's final message says the repository changed: “${clip(said, 400)}”`, final?.line ?? 1, said));
  }
  return out;
}

/**
 * The clauses of what a person typed that state a change of the repository: the change, and what to do now
 * beside it, never the rest of the message. What to do now follows the change ("Run `npx vitest run` instead")
 * or precedes it in the same sentence, after a dash ("From now on run `./ci/check.sh` — it starts its own
 * database, so the service is no longer needed"): the rule and the reason it replaces the old steps are one fact.
 */
export function changeClauses(text: string): string[] {
  const cleaned = withoutQuotedSentences(text);
  const parts = clauses(cleaned);
  const isChange = (j: number) => j >= 0 && j < parts.length && !ONE_OFF.test(parts[j]!) && CHANGED.test(parts[j]!);
  return parts.filter((c, j) => !ONE_OFF.test(c) && (CHANGED.test(c) || (isChange(j - 1) && CONSEQUENCE.test(c)) || ruleBeforeChange(cleaned, parts, j)));
}

/**
 * Whether clause `j` of `parts` (the clauses of `text`) is a command said right before a change of the
 * repository in the same sentence, after a dash: "From now on run `./ci/check.sh` — the service is no longer
 * needed". It is what the change means for running things here, so it goes with the fact, not with the
 * preferences. (A rule said after the change, "… no longer used; instead always run `x` before a commit",
 * stays a preference as well.)
 */
export function ruleBeforeChange(text: string, parts: string[], j: number): boolean {
  const next = parts[j + 1];
  const c = parts[j]!;
  return next !== undefined && !ONE_OFF.test(next) && CHANGED.test(next) && !CHANGED.test(c) && /`[^`]+`/.test(c) && dashBetween(text, c, next);
}

/** Whether `next` follows `clause` in `text` after a dash (— or –), not after a sentence end. */
export function dashBetween(text: string, clause: string, next: string): boolean {
  const at = text.indexOf(clause);
  if (at < 0) return false;
  const rest = text.slice(at + clause.length);
  return /^\s+[—–]\s+/.test(rest) && rest.replace(/^\s+[—–]\s+/, '').startsWith(next);
}

/**
 * The text with every quoted sentence left out: a changelog entry, a commit message or a release note the user
 * asks to be written ("add the entry \"X is no longer used as the link\"", « docs: on est passé de X à Y ») says what
 * the text will say, not that the repository changed (round 22, heldout-n: a release chore's changelog line was
 * kept as a change). A quoted name ("yarn", "pnpm") stays: a sentence is three words or more.
 */
export function withoutQuotedSentences(text: string): string {
  return text.replace(/"[^"\n]*"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»|「[^」\n]*」|『[^』\n]*』/g, (q) => (q.trim().split(/\s+/).length >= 3 || /^[「『]/.test(q) && q.length > 8 ? '"…"' : q));
}

/** A clause saying what to use now: a command in backticks, or "instead", "now", "statt", "改用", "代わりに". */
const CONSEQUENCE = /`[^`]+`|\b(instead|now|from now on|stattdessen|statt|jetzt|en su lugar|à la place)\b|改用|代わりに|今後は/i;

function fact(text: string, line: number, said: string): RawMemory {
  const spans = [...said.matchAll(/`([^`]+)`/g)].map((m) => m[1]).join(' ');
  return { kind: 'fact', text, evidence: { lines: [line], quote: clip(said, 200) }, importance: 5, keywords: keywordsOf([spans, said]) };
}
