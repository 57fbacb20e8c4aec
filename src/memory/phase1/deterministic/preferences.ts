import type { RawMemory } from '../../types.js';
import type { RolloutView } from '../rollout.js';
import { clip, keywordsOf } from './text.js';

/**
 * The user's corrections and stated preferences. Structure decides, not wording: anything a person typed
 * after the task, mid-run, is a correction or a preference, kept in their own words and language (minus
 * bare acknowledgements such as "ok" or "thanks, go on"). In the task itself only sentences that state a
 * standing rule count; those are recognised by rule words (never/always/don't … in several languages).
 */
export function userPreferences(view: RolloutView): RawMemory[] {
  const users = view.said.filter((s) => s.role === 'user');
  const out: RawMemory[] = [];
  const [task, ...midRun] = users;
  for (const s of midRun) {
    const text = s.text.trim();
    if (isAcknowledgement(text)) continue;
    out.push({
      kind: 'preference',
      text: `The user said mid-run: “${clip(text, 600)}”`,
      evidence: { lines: [s.line], quote: clip(text, 200) },
      importance: 5,
      keywords: keywordsOf([codeSpans(text), text]),
    });
  }
  if (task) {
    for (const sentence of sentences(task.text)) {
      if (!RULE_WORDS.test(sentence)) continue;
      out.push({
        kind: 'preference',
        text: `The user stated in the task: “${clip(sentence, 400)}”`,
        evidence: { lines: [task.line], quote: clip(sentence, 200) },
        importance: 4,
        keywords: keywordsOf([codeSpans(sentence), sentence]),
      });
    }
  }
  return out;
}

/** Words that make a sentence a standing rule rather than a one-off request. */
const RULE_WORDS = new RegExp(
  [
    "\\b(don't|do not|never|always|must not|mustn't|shouldn't|should never|on purpose|deliberately|we prefer|we use|rather than|instead of)\\b",
    '\\b(nie|niemals|immer|keine?n?)\\b', // de
    '\\b(jamais|toujours|ne (?:pas|jamais))\\b|\\bn[’\']', // fr
    '\\b(nunca|siempre|jamás|nunca|sempre|não)\\b', // es, pt
    '(никогда|всегда|\\bне\\s)', // ru
    '(不要|别|總是|总是|永远|永遠|务必|務必|禁止)', // zh
    '(しないで|ないでください|必ず|常に|絶対)', // ja
    '(하지 마|항상|절대)', // ko
  ].join('|'),
  'i',
);

const ACK = /^(ok(ay)?|yes|yep|sure|thanks?( you)?|great|good|fine|go on|continue|proceed|lgtm|sounds good|perfect|nice|👍)[\s.!,]*$/i;

function isAcknowledgement(text: string): boolean {
  return text.length === 0 || ACK.test(text) || text.split(/\s+/).length < 3;
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function codeSpans(text: string): string {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]).join(' ');
}
