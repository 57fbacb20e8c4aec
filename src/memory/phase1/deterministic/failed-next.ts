/**
 * A run that ended on its own message with its work still failing (new-user trial 27: three `./gradlew test`
 * "BUILD FAILED", then "No pude arreglarlo. … 需要先运行 `./gradlew generateProto`。"): an imported session says
 * `completed` whatever happened, so the unfinished-task entry (`task-state.ts`) never sees it, and a final
 * message without a notes heading gave nothing. What the agent names as needed next is all the run found; it is
 * kept, hedged (the run never got it to pass), in the agent's words, whatever the language.
 */
import type { RawMemory } from '../../types.js';
import { dangerousInstruction } from '../../injection.js';
import { splitCommand, workSegments } from '../commands.js';
import { looksLikeInstruction } from '../error-lines.js';
import { lastAssistantText, sentencesOf } from '../findings.js';
import { commandOf, type RolloutView } from '../rollout.js';
import { unresolvedFailures } from './fixes.js';
import { NEEDS } from './linked.js';
import { clip, keywordsOf, quote } from './text.js';

/** Work that a failed run is about (a check, a build, an install, code generation). */
const WORK = new Set(['test', 'build', 'install', 'system', 'generate']);

const fold = (t: string) => t.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Words that name the next step (en, es, pt, fr, de, it, nl, pl, sv, ru, uk, zh, ja, ko): "Next step: run `X`", "El
 * siguiente paso es …", "下一步 …" (new-user trial 28: a Codex run's final message said what to do next this way,
 * with no word of need).
 */
const NEXT_STEP =
  /\bnext steps?\b|\b(el )?(siguiente|próximo) paso\b|\bpróximo passo\b|\bprochaine étape\b|\bnächste[rn]? schritt|\bals nächstes\b|\bprossimo passo\b|\bvolgende stap\b|\bnastępny krok\b|\bnästa steg\b|следующ\p{L}* шаг|наступн\p{L}* крок|下一步|接下来|次のステップ|次に|다음 단계/iu;

/**
 * One `pitfall` when the run completed on its own final message, its last work command failed and nothing later
 * made it pass, and a sentence of that message names a command (a test, build, install or codegen step) in a code
 * span that the run never ran, saying it is needed ("needs", "需要", "нужно" …) or the next step ("next step",
 * "siguiente paso", "下一步" …): "`X` still failed when this
 * run ended (…). Its final message names what is needed next, not verified by the run: “…”". Nothing when another
 * entry of the run (`known`) already names that command.
 */
export function failedRunNextStep(view: RolloutView, known: string[]): RawMemory[] {
  if (view.outcome !== 'completed') return []; // other outcomes: the unfinished task holds the findings
  const final = lastAssistantText(view);
  if (!final) return [];
  const isWork = (cmd: string | undefined) => !!cmd && workSegments(splitCommand(cmd)).some((s) => WORK.has(s.category));
  const lastWork = [...view.steps].reverse().find((s) => isWork(commandOf(s)));
  const blocked = lastWork ? unresolvedFailures(view).find((f) => f.step === lastWork) : undefined;
  if (!blocked) return [];
  const ran = view.steps.map((s) => fold(commandOf(s) ?? '')).filter(Boolean);
  const picked: string[] = [];
  const commands: string[] = [];
  let used = 0;
  for (const sentence of sentencesOf(final.text)) {
    if (looksLikeInstruction(sentence) || dangerousInstruction(sentence)) continue;
    const spans = [...sentence.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
    const next = spans.filter((span) => {
      const work = workSegments(splitCommand(span)).filter((s) => WORK.has(s.category));
      if (work.length === 0 || fold(span) === fold(blocked.command)) return false;
      // A step the run already took (passed or not) is no step still to take.
      if (ran.some((c) => c.includes(fold(span)))) return false;
      return NEEDS.test(sentence) || NEXT_STEP.test(sentence);
    });
    if (next.length === 0 || used + sentence.length > 300) continue;
    used += sentence.length + 1;
    picked.push(sentence);
    commands.push(...next);
  }
  if (picked.length === 0) return [];
  const plain = (t: string) => fold(t.replace(/`/g, ' '));
  if (commands.every((c) => known.some((k) => plain(k).includes(plain(c))))) return [];
  const said = picked.join(' ');
  const why = blocked.error ? `: ${quote(clip(blocked.error, 160))}` : '';
  return [
    {
      kind: 'pitfall',
      text: `\`${clip(blocked.command, 160)}\` still failed when this run ended${why}. Its final message names what is needed next, not verified by the run (it never got the command to pass): “${said}”`,
      evidence: { lines: [...new Set([blocked.step.callLine, ...(blocked.step.resultLine ? [blocked.step.resultLine] : []), final.line])].sort((a, b) => a - b), ...(blocked.error ? { quote: clip(blocked.error, 200) } : {}) },
      importance: 3,
      keywords: keywordsOf([blocked.command, ...commands]),
    },
  ];
}
