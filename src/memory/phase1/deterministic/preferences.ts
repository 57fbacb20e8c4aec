import type { RawMemory } from '../../types.js';
import type { RolloutView } from '../rollout.js';
import { CHANGED, DURABLE, ONE_OFF, clauses } from './durable.js';
import { clip, keywordsOf } from './text.js';

/**
 * The user's corrections and stated preferences. Structure decides first: what a person typed after the task,
 * mid-run, is a correction, kept in their own words and language (minus bare acknowledgements such as "ok").
 * Then the kind of sentence decides what is kept (`durable.ts`):
 * - a statement that the repository changed ("we switched to X", "X is gone", "数据库已经从 A 迁移到 B") is a
 *   fact, and retires older entries about what changed (phase 2);
 * - clauses said for this run only ("for now", "this time", "I'll open the PR myself") and orders about this
 *   run's work ("revert that", "please amend", "reformat that file") are left out: they stay in the rollout
 *   summary; when a message also states a lasting rule ("in this repo", "from now on", "以后", "必ず"), only
 *   the lasting clauses are kept;
 * - in the task itself only sentences stating a standing rule count, and never one said for this run.
 */
export function userPreferences(view: RolloutView): RawMemory[] {
  const users = view.said.filter((s) => s.role === 'user');
  const out: RawMemory[] = [];
  const [task, ...midRun] = users;
  for (const s of midRun) {
    const text = s.text.trim();
    if (isAcknowledgement(text)) continue;
    const parts = clauses(text);
    if (parts.some((c) => CHANGED.test(c))) {
      const kept = parts.filter((c) => !ONE_OFF.test(c) && !isRunOrder(c));
      out.push({
        kind: 'fact',
        text: `The user said the repository changed: “${clip(kept.length === parts.length ? text : kept.join(' '), 600)}”`,
        evidence: { lines: [s.line], quote: clip(text, 200) },
        importance: 5,
        keywords: keywordsOf([codeSpans(text), text]),
      });
      continue;
    }
    // "That goes for every test in this repo": a lasting clause that points back keeps the clause before it.
    const lasting = parts.filter((c, i) => (isLasting(c) || (i + 1 < parts.length && isLasting(parts[i + 1]!) && ANAPHORIC.test(parts[i + 1]!))));
    const kept = lasting.length ? lasting : parts.filter((c) => !ONE_OFF.test(c) && !isRunOrder(c));
    if (kept.length === 0 || isAcknowledgement(kept.join(' '))) continue;
    out.push({
      kind: 'preference',
      text: `The user said mid-run: “${clip(kept.length === parts.length ? text : kept.join(' '), 600)}”`,
      evidence: { lines: [s.line], quote: clip(text, 200) },
      importance: 5,
      keywords: keywordsOf([codeSpans(text), text]),
    });
  }
  if (task) {
    for (const sentence of sentences(task.text)) {
      if (!RULE_WORDS.test(sentence) || ONE_OFF.test(sentence)) continue;
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

const isLasting = (c: string): boolean => DURABLE.test(c) && !ONE_OFF.test(c) && !DEICTIC.test(c);
/** A clause that points back to the one before ("That goes for …", "Das gilt für …", "这适用于 …"). */
const ANAPHORIC = /^(that|this|the same|same|it|das|dies|cela|ça|esto|eso|这|這|それ|これ)\b/i;

/** A clause about a thing of this run ("that file", "this change", "it"). */
const DEICTIC = /\b(that|this|these|those) (file|files|change|changes|commit|function|test|one|line|pr|branch)\b/i;

/** An order about this run's work: "Revert that …", "Please amend.", "reformat that file", "undo it". */
function isRunOrder(clause: string): boolean {
  const c = clause.replace(/^(please|pls|now|and|then|ok(ay)?|so)[,\s]+/i, '').trim();
  return /^(revert|undo|amend|redo|reformat|rename|retry|rerun|re-run|stop|try again|fix (that|this|it))\b/i.test(c) && (c.split(/\s+/).length <= 4 || DEICTIC.test(c) || /\b(that|it)\b/i.test(c));
}

/**
 * A sentence of the task that states a standing rule: an imperative "don't / never / always …" at the start
 * of a clause (not "users don't see …"), "on purpose", or an imperative prohibition in another language.
 * Best effort: the task is mostly about this run, so the bar is high; mid-run messages need no such test.
 */
const RULE_WORDS = new RegExp(
  [
    "(^|[,;:—–(]\\s*|\\b(so|and|but|please|then|just|also)\\s+)(don't|do not|never|always)\\s+\\w+",
    '\\b(on purpose|deliberately)\\b',
    '\\b(niemals|bitte nicht|nie\\s+\\w+en)\\b', // de
    '\\b(jamais|ne (?:pas|jamais) (?:utiliser|modifier|toucher))\\b|^n[’\']', // fr
    '\\b(nunca|no (?:uses|cambies|toques|modifiques)|não (?:use|mude|toque))\\b', // es, pt
    '(никогда|не (?:используй|меняй|трогай|редактируй))', // ru
    '(不要|别|禁止|务必|務必)', // zh
    '(しないで|ないでください|絶対に)', // ja
    '(하지 마|절대)', // ko
  ].join('|'),
  'i',
);

/** A message made only of acknowledgements ("ok", "thanks, go ahead", "danke", "はい"), in a few languages. */
const ACK =
  /^((ok(ay)?|yes|yep|yeah|sure|thanks?|thank you|great|good|fine|go on|go ahead|continue|proceed|lgtm|sounds good|perfect|nice|cool|do it|please|👍|danke|ja|weiter|merci|oui|gracias|sí|vale|はい|ありがとう(ございます)?|了解|好的?|谢谢|继续|네|감사합니다)[\s.!,。、！]*)+$/i;
/** Scripts written without spaces between words (Chinese, Japanese, Thai …): length counts, not words. */
const UNSPACED = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]/;

function isAcknowledgement(text: string): boolean {
  if (text.length === 0 || ACK.test(text)) return true;
  // One bare word ("fine", "pnpm?") is too thin to keep; "use pnpm" or "モックは使わないで" is a correction.
  return UNSPACED.test(text) ? text.replace(/[\s\p{P}]/gu, '').length < 3 : text.split(/\s+/).length < 2;
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
