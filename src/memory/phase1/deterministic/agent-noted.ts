import type { RawMemory } from '../../types.js';
import { sentencesOf } from '../findings.js';
import type { RolloutView } from '../rollout.js';
import { clip, keywordsOf } from './text.js';

/**
 * A rule the agent acknowledged in its final message (round 24): "Noted: every future parameter that sizes a
 * Gray-coded pointer gets the same kind of `require`", "Noted for future runs: …", "Going forward, …". The user
 * may have stated it in any language (Scots, Sundanese …): the agent's acknowledgement is what says it lasts.
 * Kept only when the sentence names, in a code span, something a user message also names (the rule is the
 * user's, not the agent's own idea) and no preference of the run (`known`) already holds that span.
 *
 * Returns one `preference` per acknowledged sentence (importance 4), in the agent's words.
 */
export function agentAcknowledged(view: RolloutView, known: string[]): RawMemory[] {
  const final = view.said.filter((s) => s.role === 'assistant').at(-1);
  if (!final) return [];
  const typed = view.said.filter((s) => s.role === 'user').map((s) => s.text).join('\n');
  const out: RawMemory[] = [];
  for (const sentence of sentencesOf(final.text)) {
    const m = NOTED.exec(sentence);
    if (!m) continue;
    const rule = sentence.slice(m.index + m[0].length).trim() || sentence;
    const spans = [...rule.matchAll(/`([^`\n]+)`/g)].map((x) => x[1]!.trim()).filter((s) => s.length >= 3);
    const shared = spans.filter((s) => typed.includes(s));
    if (shared.length === 0 || shared.some((s) => known.some((k) => k.includes(s)))) continue;
    out.push({
      kind: 'preference',
      text: `The agent noted as a rule for later runs: “${clip(rule, 400)}”`,
      evidence: { lines: [final.line], quote: clip(sentence, 200) },
      importance: 4,
      keywords: keywordsOf([shared.join(' '), rule]),
    });
  }
  return out;
}

/** "Noted:", "Noted for the future:", "Understood for future runs —", "Going forward,", "From now on,", "For next time:". */
const NOTED =
  /^(?:noted|understood|acknowledged|will do|got it)(?: (?:for|in) (?:the )?(?:future|next time|later|future (?:runs|changes|work)))?\s*[:—–,-]\s*|^(?:going forward|from now on|for (?:the )?future (?:runs|changes)?|for next time|in future (?:runs|changes))\s*[:,—–-]\s*/i;
