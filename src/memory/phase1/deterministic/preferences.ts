import type { RawMemory } from '../../types.js';
import type { RolloutView } from '../rollout.js';
import { adoptedRules } from './adopted.js';
import { echoedRules } from './echoed.js';
import { dashBetween, ruleBeforeChange, withoutQuotedSentences } from './changes.js';
import { CHANGED, ONE_OFF, clauses, statesLastingRule } from './durable.js';
import { clip, keywordsOf } from './text.js';
import { pushAll } from '../../../config/arrays.js';

/**
 * The user's lasting preferences (issue 12): only a clause stated as lasting (`statesLastingRule`: "from now
 * on", "in this repo", "we use …", a commanding "always/never", "ab jetzt immer", "以后…都", "今後は常に", in
 * several languages) becomes a preference, wherever it was typed: the task or a message mid-run. Only the
 * lasting clauses are kept, never the one-off part beside them ("reformat that file", "don't push this
 * branch"); one-off instructions, orders about this run and the task itself stay in the rollout summary.
 * A mid-run message with no lasting wording a list knows may still hold a rule the run adopted (`adopted.ts`).
 * A statement that the repository changed is a fact (`changes.ts`), not a preference, and so is the rule said
 * beside it as what to do now.
 */
export function userPreferences(view: RolloutView): RawMemory[] {
  const users = view.said.filter((s) => s.role === 'user');
  const out: RawMemory[] = [];
  const [task, ...midRun] = users;
  for (const s of midRun) {
    const kept = lastingClauses(s.text.trim());
    if (kept.length === 0) {
      const adopted = adoptedRules(view, s);
      pushAll(out, adopted.length ? adopted : echoedRules(view, s));
      continue;
    }
    out.push({
      kind: 'preference',
      text: `The user said mid-run: “${clip(kept.join(' '), 600)}”`,
      evidence: { lines: [s.line], quote: clip(s.text.trim(), 200) },
      importance: 5,
      keywords: keywordsOf([codeSpans(kept.join(' ')), kept.join(' ')]),
    });
  }
  if (task) {
    for (const clause of lastingClauses(task.text)) {
      out.push({
        kind: 'preference',
        text: `The user stated in the task: “${clip(clause, 400)}”`,
        evidence: { lines: [task.line], quote: clip(clause, 200) },
        importance: 4,
        keywords: keywordsOf([codeSpans(clause), clause]),
      });
    }
  }
  return out;
}

/**
 * The clauses of `text` that state a lasting rule, plus a clause that a lasting one right after it points
 * back to ("Use `-race`. That goes for every test in this repo."). Clauses about a change of the repository
 * are left to `changes.ts`.
 */
function lastingClauses(text: string): string[] {
  // What a change of the repository says to do now ("from now on run X — Y is no longer needed") is part of that fact.
  const all = clauses(withoutQuotedSentences(text));
  const leading = new Set(all.filter((_, j) => ruleBeforeChange(text, all, j)));
  const parts = clauses(text).flatMap((c) => (CHANGED.test(c) ? ruleBesideChange(c) : [c])).filter((c) => !leading.has(c));
  const kept: string[] = [];
  parts.forEach((c, i) => {
    // "Never put secrets in home.nix — use sops-nix for them": what follows a dash spells out the rule before it.
    if (i > 0 && kept.at(-1)?.endsWith(parts[i - 1]!) && dashBetween(text, parts[i - 1]!, c) && !ONE_OFF.test(c) && !DEICTIC.test(c) && !/[?？]\s*$/.test(c)) {
      kept[kept.length - 1] = `${kept.at(-1)} — ${c}`;
      return;
    }
    // "Det gäller i det här repot framöver." says only how long the clause before holds: one rule, not two.
    if (i > 0 && kept.at(-1) === parts[i - 1] && isLasting(c) && ANAPHORIC.test(c)) kept[kept.length - 1] = `${parts[i - 1]} ${c}`;
    else if (isLasting(c) || (i + 1 < parts.length && isLasting(parts[i + 1]!) && ANAPHORIC.test(parts[i + 1]!))) kept.push(c);
  });
  return isAcknowledgement(kept.join(' ')) ? [] : kept;
}

/**
 * The lasting rule said in the same clause as a change of the repository, after or before a comma ("Formatting
 * is from now on done with `tofu fmt -recursive`, hclfmt no longer exists here"; gridwell, heldout-o): the change
 * stays a fact (`changes.ts`), and the rule beside it is the user's preference as well. Only a comma-part with a
 * lasting marker and no change in it is kept; a clause that is only a change keeps nothing.
 */
function ruleBesideChange(clause: string): string[] {
  const parts = clause.split(/\s*[,，、]\s+|，/).map((p) => p.trim()).filter(Boolean);
  if (parts.length < 2) return [];
  return parts.filter((p) => !CHANGED.test(p) && isLasting(p) && /`[^`]+`/.test(p));
}

const isLasting = (c: string): boolean => statesLastingRule(c) && !DEICTIC.test(c);
/** A clause that points back to the one before ("That goes for …", "Das gilt für …", "Det gäller …", "这适用于 …"). */
const ANAPHORIC = /^(that|this|the same|same|it|das|dies|cela|ça|ce|esto|eso|isso|isto|ciò|questo|dat|dit|det|dette|to|toto|tohle|это|це|αυτό|bu|ini|itu|điều này|यह|这|這|それ|これ|이것|이건)(?![\p{L}\p{N}])/iu;

/** A clause about a thing of this run ("that file", "this change", "it"). */
const DEICTIC = /\b(that|this|these|those) (file|files|change|changes|commit|function|test|one|line|pr|branch)\b/i;

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

function codeSpans(text: string): string {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]).join(' ');
}
