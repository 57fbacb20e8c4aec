import { entryId, otherTasks, similarity } from '../normalize.js';
import type { Candidate } from './merge.js';
import { proseTokens } from './merge.js';
import { CONSTRAINT_FACT } from '../phase1/deterministic/constraints.js';
import { moreStaleTerms } from './stale-terms-more.js';
import { workaroundsNoLongerNeeded } from './workaround.js';
import { namingDeletedFiles } from './deleted-files.js';
import { exitCodesNowTrusted } from './trusted-exit.js';
import { prohibitionsNowLifted } from './lifted-prohibitions.js';
import { changedAwayFrom } from './unused-terms.js';
import { pushAll } from '../../config/arrays.js';

/**
 * "The newer fact wins" (issue 5, phase 2): finds older candidates that a newer one contradicts.
 *
 * 1. Same subject, same tool, other arguments: the content outside code spans, quoted tool output and
 *    mnemara's own template wording is nearly the same (Jaccard ≥ 0.6 on at least two words each), the words
 *    that set them apart do not name each one's own argument (two subjects), and a code span of each starts with the same word but they
 *    differ, a leading `cd … &&` ignored — "build with `cmake --build build -j16`" vs "… `-j4`". (Another
 *    tool altogether is not enough: a repository may well install its frontend with npm and its backend with pip.)
 * 2. The newer text names the older one's term as outdated: "moved/switched/migrated from X to Y",
 *    "`X` no longer works / is outdated", "X is gone", "X no longer exists", "instead of `X`", "no longer
 *    uses/needs X", and the same in other languages ("从 X 迁移到 Y", "X 换成了 Y", "von X auf Y umgestellt",
 *    "X nicht mehr", "ya no … X", "de X a Y", "XからYに移行"). An older entry that mentions X (as a word or a
 *    code span) and not Y is stale.
 *    "`X` failed" (mnemara's own pitfall wording) is a contradiction only of an older procedure or fact that
 *    recommends X: it never retires an older pitfall or unfinished work that merely names X — a later failure
 *    of the same command confirms those, it does not contradict them.
 * 4. A later success retires a pitfall about that command: an older pitfall saying "`X` failed" with no
 *    "what worked" goes when a newer rollout ran X and it exited 0 (its rollout summary's `Tried`).
 *
 * 3. Same command, other tool: a code span of the older entry equals one of the newer entry's except for its
 *    first word — "`npm run test:unit`" vs "`pnpm run test:unit`" (the repository changed its runner).
 *
 * Preferences are superseded only by a newer fact stating a change of the repository (`migrationRetires`);
 * phase 2 applies the same rule to a person's own entries.
 */

interface StaleTerm {
  term: string;
  replacement?: string;
  /** From "`X` failed": a contradiction only of an older entry that recommends X. */
  failure?: boolean;
}

const TERM = '`?([\\w.@:/+-]+)`?';

/** A bare word ends before sentence punctuation. */
function clean(term: string): string {
  return term.replace(/[.,;:]+$/, '');
}

/** Terms the text declares outdated. Exported for tests. */
export function staleTerms(text: string): StaleTerm[] {
  const out: StaleTerm[] = [];
  for (const m of text.matchAll(new RegExp(`\\b(?:moved|switched|migrated|changed|went|converted)\\s+(?:\\w+\\s+)?from\\s+${TERM}\\s+to\\s+${TERM}`, 'gi'))) {
    out.push({ term: clean(m[1]!), replacement: clean(m[2]!) });
  }
  for (const m of text.matchAll(/`([^`]+)`\s+(?:now\s+|also\s+)?(?:no longer works|is (?:now )?(?:outdated|stale|obsolete|deprecated|gone|removed|wrong))/gi)) {
    out.push({ term: m[1]! });
  }
  for (const m of text.matchAll(/`([^`]+)`\s+(?:now\s+)?(?:fails|failed|errors|does not work|doesn't work)/gi)) out.push({ term: m[1]!, failure: true });
  for (const m of text.matchAll(/\b(?:instead of|rather than|replaces|replaced)\s+`([^`]+)`/gi)) out.push({ term: m[1]! });
  const ART = '(?:(?:the|a|an|our|its)\\s+)?';
  for (const m of text.matchAll(new RegExp(`\\bno longer\\s+(?:uses?|using|needs?|requires?)\\s+${ART}${TERM}`, 'gi'))) out.push({ term: clean(m[1]!) });
  for (const m of text.matchAll(new RegExp(`(?:^|[\\s“"(])${TERM}\\s+(?:is|are)\\s+(?:gone|no longer (?:used|needed|there)|removed)\\b`, 'gi'))) out.push({ term: clean(m[1]!) });
  for (const m of text.matchAll(new RegExp(`(?:^|[\\s“"(;,])${TERM}\\s+no longer exists?\\b`, 'gi'))) out.push({ term: clean(m[1]!) });
  // Other languages: "从 X 迁移到 Y" / "X 换成了 Y" (zh), "von X auf/zu Y" + umgestellt/gewechselt/migriert (de),
  // "de X a Y" + migr/cambi (es), "de X à Y" (fr), "XからYに移行/切り替え" (ja), "X nicht mehr", "ya no … X".
  const W = '([\\w.@:/+-]+)';
  for (const m of text.matchAll(new RegExp(`从\\s*${W}\\s*(?:迁移|遷移|切换|切換|换|換|改)\\S{0,2}\\s*(?:到|为|成|至)\\s*${W}`, 'g'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`${W}\\s*(?:换成了|換成了|改成了|替换成|替換成|改为)\\s*${W}`, 'g'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`\\bvon\\s+${W}\\s+(?:auf|zu|nach)\\s+${W}\\s+(?:umgestellt|gewechselt|migriert)`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`\\b(?:migr\\w+|cambi\\w+|pas\\w+|pass\\w+)\\s+(?:\\w+\\s+)?de\\s+${W}\\s+(?:a|à|al|vers)\\s+${W}`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`${W}\\s*から\\s*${W}\\s*(?:に|へ)\\s*(?:移行|切り替え|変更)`, 'g'))) out.push({ term: m[1]!, replacement: m[2]! });
  // "X wird nicht mehr gebraucht", "wir benutzen X nicht mehr": the term is the word that is not a verb.
  const VERB = /^(wird|werden|ist|sind|brauchen|braucht|benutzen|benutzt|nutzen|nutzt|verwenden|verwendet|haben|hat|gibt|laufen|läuft|benötigen|benötigt|installieren|wir)$/i;
  for (const m of text.matchAll(new RegExp(`${W}\\s+(?:([\\w.@:/+-]+)\\s+)?nicht mehr\\b`, 'gi'))) {
    const term = m[2] && VERB.test(m[1]!) ? m[2] : m[1]!;
    if (!VERB.test(term)) out.push({ term });
  }
  for (const m of text.matchAll(new RegExp(`\\bya no\\s+(?:usa\\w*|necesit\\w+|us\\w+|hace falta)\\s+(?:(?:el|la|los|las)\\s+)?${W}`, 'gi'))) out.push({ term: m[1]! });
  // "on n'utilise plus X", "plus besoin de X (ni de Y)" (fr); "non usiamo più X" (it); "não usamos mais X" (pt);
  // "gebruiken X niet meer" (nl); "X wird nicht mehr gebraucht" is the German rule above.
  const LIST = (head: string) => new RegExp(`${head}\\s+((?:(?:de|d'|du|des|le|la|les|l'|il|lo|la|o|a|os|as|the)\\s*)?${W}(?:\\s+(?:ni|ou|ni de|o|e|ou de|and|or)\\s+(?:(?:de|d'|du|des|le|la|les|l')\\s*)?(?:\\w+\\s+)?${W})*)`, 'gi');
  for (const head of ["n'utilis\\w*\\s+plus", 'plus besoin', 'non\\s+(?:usiamo|uso|serve)\\s+più', 'não\\s+(?:usamos|uso|precisamos)\\s+mais', 'ne\\s+plus\\s+utiliser']) {
    for (const m of text.matchAll(LIST(head))) {
      for (const w of m[1]!.split(/\s+(?:ni|ou|o|e|and|or)\s+/i)) {
        const word = w.replace(/^(?:(?:de|d'|du|des|le|la|les|l'|il|lo|o|a|os|as|the)\s*)+/i, '').split(/\s+/).at(-1)!;
        out.push({ term: clean(word) });
      }
    }
  }
  for (const m of text.matchAll(new RegExp(`\\bgebruik\\w*\\s+(?:we\\s+)?${W}\\s+niet meer`, 'gi'))) out.push({ term: m[1]! });
  // "перешли с X на Y", "X больше не нужен/используем", "больше не используем X" (ru); "van X naar Y" (nl); "z X na Y" (pl).
  const C = '([\\w.@:/+-]+(?:\\s+\\d[\\w.]*)?|[\\u0400-\\u04ff]+)';
  for (const m of text.matchAll(new RegExp(`перешли\\s+(?:с|со)\\s+${C}\\s+на\\s+${C}`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`${W}\\s+больше не\\s+(?:нужен|нужна|нужно|нужны|используется|используем|требуется)`, 'gi'))) out.push({ term: m[1]! });
  for (const m of text.matchAll(new RegExp(`больше не\\s+(?:используем|нужен|нужна|нужны|ставим)\\s+${W}`, 'gi'))) out.push({ term: m[1]! });
  for (const m of text.matchAll(new RegExp(`\\b(?:overgestapt|gemigreerd|overgegaan)\\s+(?:\\w+\\s+)?van\\s+${W}\\s+naar\\s+${W}`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`\\bvan\\s+${W}\\s+naar\\s+${W}\\s+(?:overgestapt|gemigreerd|gegaan)`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`(?:przeszliśmy|zmigrowaliśmy)\\s+(?:\\S+\\s+)?z\\s+${W}\\s+na\\s+${W}`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  for (const m of text.matchAll(new RegExp(`(?:migrat[oi]|passati)\\s+(?:\\w+\\s+)?da\\s+${W}\\s+a\\s+${W}`, 'gi'))) out.push({ term: m[1]!, replacement: m[2]! });
  pushAll(out, moreStaleTerms(text));
  return out
    .map((t) => ({ ...t, term: clean(t.term), ...(t.replacement ? { replacement: clean(t.replacement) } : {}) }))
    .filter((t) => t.term.length >= 2 && !STOP_TERMS.has(t.term.toLowerCase()) && !/^\d+(\.\d+)*$/.test(t.term));
}

/** Words that the patterns above can catch but that name nothing. */
const STOP_TERMS = new Set(['it', 'this', 'that', 'the', 'a', 'an', 'we', 'they', 'es', 'das', 'der', 'die', 'el', 'la', 'le', 'les']);

/** The older entry says X failed and nothing about what worked: a pitfall about that command. */
function failedCommands(text: string): string[] {
  if (/what worked|worked:|needs? `/i.test(text)) return [];
  return [...text.matchAll(/`([^`]+)`\s+(?:now\s+)?failed/gi)].map((m) => m[1]!.trim());
}

/**
 * What a pitfall with a fix says beyond the commands that failed: "`./gradlew build` failed: “…”. What worked:
 * `./gradlew ktlintFormat`" is a lesson about ktlintFormat. A later "use `check` instead of `build`" leaves it
 * true; the failing command only set the scene. A pitfall without a fix, and every other kind, is all lesson.
 */
function beyondItsFailures(entry: Candidate): string {
  if (entry.kind !== 'pitfall' || !/what worked|worked:/i.test(entry.text)) return entry.text;
  return entry.text.replace(/`[^`]+`\s+(?:now\s+)?failed(?::\s*“[^”]*”(?:\s*\/\s*“[^”]*”)*)?/gi, ' ');
}

/**
 * Rule 4 for the environment: a constraint a run that did not finish hit ("/data is not readable", "cannot
 * reach registry.example.org") is lifted when a newer rollout ran a command on the same subject (an absolute
 * path, under it, or a host name) and it exited 0.
 */
function liftedBy(entry: Candidate, outcomes: Array<{ order: number; passed: string[]; exited0?: string[] }>): { command: string; subject: string; order: number } | undefined {
  if (entry.kind !== 'fact' || !entry.text.startsWith(CONSTRAINT_FACT)) return undefined;
  const subjects = [...entry.text.matchAll(/(?<![\w.])(\/[\w.-]+(?:\/[\w.-]+)*|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:org|com|io|net|dev|internal|local))\b/gi)]
    .map((m) => m[1]!.replace(/\/+$/, ''))
    .filter((p) => p.length >= 4 && !/^\/(workspace|tmp|usr|bin|etc|home)$/.test(p));
  if (subjects.length === 0) return undefined;
  const on = (cmd: string, subject: string) => new RegExp(`(?<![\\w.-])${escapeRe(subject)}(?![\\w.-])`, 'i').test(cmd);
  // Exit 0 is the evidence: the command got through the constraint, whatever its output said about the task.
  for (const o of [...outcomes].sort((a, b) => a.order - b.order)) {
    if (o.order >= entry.order) continue;
    for (const command of o.exited0 ?? o.passed) {
      const subject = subjects.find((s) => on(command, s));
      if (subject) return { command, subject, order: o.order };
    }
  }
  return undefined;
}

/**
 * A constraint a newer rollout got through (`order`: that rollout's place, 0 = newest) with `command`, which
 * names `subject` (the path or host the constraint was about).
 */
export interface Lifted {
  stale: Candidate;
  command: string;
  subject: string;
  order: number;
}

/**
 * The fact that replaces a lifted constraint: the next run should not keep working around it. It names the
 * subject and where the old finding went, never the finding's words: quoted here, the retired claim ("no
 * licence", "cannot reach …") would still be read as true by the next agent.
 */
export function liftedFact(l: Lifted, rollout: { rolloutId: string; time: string }): Candidate {
  const subject = l.subject.replace(/`/g, "'");
  return replacingFact(
    `\`${l.command.replace(/`/g, "'")}\` works now, so an earlier run's finding about \`${subject}\` no longer holds (it is in the archive: \`mnemara memory search ${subject}\`).`,
    l.stale,
    rollout,
    l.order,
  );
}

/**
 * A fact that takes the place of a retired entry (`stale`): attributed to the rollout that retired it (`order`
 * its place, 0 = newest), with the stale entry's importance and keywords.
 */
export function replacingFact(text: string, stale: Candidate, rollout: { rolloutId: string; time: string }, order: number): Candidate {
  return { kind: 'fact', text, sources: [rollout.rolloutId], importance: stale.importance, at: rollout.time, order, count: 1, ids: new Set([entryId(text)]), keywords: stale.keywords };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mentions(text: string, term: string): boolean {
  // A bare word of 5+ letters also names its longer forms ("Postgres" → "postgresql").
  const tail = /^[a-z]{5,}$/i.test(term) ? '[a-z]{0,3}' : '';
  if (new RegExp(`(?<![\\w@/.-])${escapeRe(term)}${tail}(?![\\w@/-])`, 'i').test(text)) return true;
  if (!/^[a-z]{5,}$/i.test(term)) return false;
  // …and a package or task built on it: `default-libmysqlclient-dev`, `mariadb-server`, `spotlessApply`.
  return (
    new RegExp(`(?<![\\w.])(?:[a-z0-9]+-)*(?:lib)?${escapeRe(term)}${tail}(?:-[a-z0-9]+)+(?![\\w.-])|(?<![\\w.-])(?:[a-z0-9]+-)+(?:lib)?${escapeRe(term)}${tail}(?![\\w.-])`, 'i').test(text) ||
    new RegExp(`(?<![\\w.-])${escapeRe(term.toLowerCase())}[A-Z][a-zA-Z]*\\b`).test(text.replace(new RegExp(escapeRe(term), 'gi'), term.toLowerCase()))
  );
}

/** Whether `command` is among `passed` (the same command, ignoring `cd … &&` and output plumbing). */
function ranAndPassed(command: string, passed: string[]): boolean {
  const norm = (c: string) => c.replace(/^cd \S+ && /, '').replace(/\s+2>&1|\s*\|\s*(tail|head)\b.*$/g, '').trim();
  const c = norm(command);
  return c.length > 0 && passed.some((p) => norm(p) === c);
}

function codeSpans(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim().toLowerCase()));
}

/** Whether some command of `older` is a command of `newer` run by another tool (same words after the first). */
function swappedTool(newer: Set<string>, older: Set<string>): boolean {
  const split = (c: string): [string, string] => {
    const words = c.split(/\s+/);
    return [words[0]!, words.slice(1).join(' ')];
  };
  for (const o of older) {
    const [ot, orest] = split(o);
    if (!orest || orest.length < 6 || !/[a-z]/.test(orest)) continue;
    for (const n of newer) {
      const [nt, nrest] = split(n);
      if (nrest === orest && nt !== ot && !newer.has(o)) return true;
    }
  }
  return false;
}

/**
 * Words of mnemara's own entry templates ("In this environment … failed … What worked", "needs … first",
 * "The user said mid-run") and of quoted tool output: two entries that share only these say nothing alike.
 */
const TEMPLATE =
  /\b(in this environment|what worked|without it|then|first|failed|needs|after changing|changing|the user said mid-run|the user stated in the task|install the dependencies with|worked in this workspace|run the tests with|passed in this workspace|unfinished|exit)\b/gi;

/**
 * The words an entry states itself: no code spans, no quoted tool output, no template wording. An agent's note
 * ("Noted by the agent at the end of a run (task): “…”") is its quote: without it, two notes on different jobs
 * ("run the linter with `npm run lint`", "build the bundle with `npm run build`") shared only the template and
 * the newer retired the older (thirteenth trial F21).
 */
export function contentProse(text: string): Set<string> {
  const note = /^Noted by the agent at the end of a run \([^)]*\): “([^”]*)”/.exec(text);
  if (note) return proseTokens(note[1]!.replace(/"[^"\n]*"/g, ' ').replace(TEMPLATE, ' '));
  return proseTokens(text.replace(/“[^”]*”/g, ' ').replace(/"[^"\n]*"/g, ' ').replace(TEMPLATE, ' '));
}

/** A command without the `cd <dir> &&` in front of it (every agent types it; it names no tool). */
export function withoutCd(command: string): string {
  return command.replace(/^(\s*(cd|pushd)\s+\S+\s*(&&|;)\s*)+/, '').trim();
}

/**
 * Rule 1: the same subject in other words of the same tool. The content outside templates, quotes and
 * code spans is nearly the same (Jaccard ≥ 0.6, at least two words each) and a command of each (without
 * its leading `cd … &&`) starts with the same program but differs.
 */
export function sameSubjectOtherArguments(newer: string, older: string): boolean {
  // Two unfinished tasks' last steps differ in their arguments because the tasks differ (trial 21 F2).
  if (otherTasks(newer, older)) return false;
  const ca = new Set([...codeSpans(newer)].map(withoutCd));
  const cb = new Set([...codeSpans(older)].map(withoutCd));
  const first = (c: string): string => c.split(/\s+/)[0]!;
  const sameTool = [...cb].some((o) => o && !ca.has(o) && [...ca].some((n) => n && first(n) === first(o) && n !== o));
  if (!sameTool) return false;
  const pa = contentProse(newer);
  const pb = contentProse(older);
  if (!(pa.size >= 2 && pb.size >= 2 && similarity(pa, pb).jaccard >= 0.6)) return false;
  return !namesItsOwnArgument(pa, pb, ca, cb);
}

/**
 * Whether the words that set two entries' prose apart name their commands' differing arguments on both sides:
 * "the north service starts with `make north-up`" and "the west service starts with `make west-up`" are two
 * subjects, each with its own command, not one command whose arguments changed (new-user trial 27: three runs'
 * notes of the same shape retired one another). "Build with `cmake … -j16`" against "… `-j4`" has no such words.
 */
function namesItsOwnArgument(pa: Set<string>, pb: Set<string>, ca: Set<string>, cb: Set<string>): boolean {
  const inCode = (word: string, spans: Set<string>): boolean => [...spans].some((c) => c.includes(word));
  const onlyA = [...pa].filter((w) => !pb.has(w) && w.length >= 2);
  const onlyB = [...pb].filter((w) => !pa.has(w) && w.length >= 2);
  return onlyA.some((w) => inCode(w, ca) && !inCode(w, cb)) && onlyB.some((w) => inCode(w, cb) && !inCode(w, ca));
}

/**
 * Whether `newer` states a change of the repository ("migrated from X to Y", "X is gone", "no longer uses X",
 * in several languages: `staleTerms`, never "`X` failed") that makes `older` stale: `older` names X and not Y.
 * The one rule that also retires preferences and a person's own entries (issue 12): they said X, the
 * repository has moved on.
 */
export function migrationRetires(newer: string, older: string): boolean {
  return staleTerms(newer).some((t) => !t.failure && mentions(older, t.term) && !(t.replacement && mentions(older, t.replacement)));
}

function sameRollouts(a: Candidate, b: Candidate): boolean {
  return a.sources.some((s) => b.sources.includes(s));
}

/**
 * Returns the candidates that survive, and for each dropped one the candidate that superseded it.
 * `a` supersedes `b` only when `a` is strictly newer and they share no source rollout.
 */
export function dropSuperseded(
  candidates: Candidate[],
  outcomes: Array<{ order: number; passed: string[]; exited0?: string[]; ran?: string[]; deleted?: string[] }> = [],
): { kept: Candidate[]; superseded: Array<{ stale: Candidate; by: Candidate | null }>; lifted: Lifted[] } {
  const superseded: Array<{ stale: Candidate; by: Candidate | null }> = [];
  const stale = new Set<Candidate>();
  for (const b of candidates) {
    if (b.kind !== 'pitfall') continue;
    const failed = failedCommands(b.text);
    if (failed.length && failed.every((f) => outcomes.some((o) => o.order < b.order && ranAndPassed(f, o.passed)))) {
      stale.add(b);
      superseded.push({ stale: b, by: null });
    }
  }
  for (const { stale: b, by } of exitCodesNowTrusted(candidates)) {
    if (stale.has(b)) continue;
    stale.add(b);
    superseded.push({ stale: b, by });
  }
  for (const { stale: b, by } of prohibitionsNowLifted(candidates)) {
    if (stale.has(b)) continue;
    stale.add(b);
    superseded.push({ stale: b, by });
  }
  for (const { stale: b } of namingDeletedFiles(candidates, outcomes)) {
    if (stale.has(b)) continue;
    stale.add(b);
    superseded.push({ stale: b, by: null });
  }
  for (const b of workaroundsNoLongerNeeded(candidates, outcomes)) {
    if (stale.has(b)) continue;
    stale.add(b);
    superseded.push({ stale: b, by: null });
  }
  for (const { stale: b, by } of changedAwayFrom(candidates, outcomes)) {
    if (stale.has(b)) continue;
    stale.add(b);
    superseded.push({ stale: b, by });
  }
  const lifted: Lifted[] = [];
  for (const b of candidates) {
    const by = stale.has(b) ? undefined : liftedBy(b, outcomes);
    if (!by) continue;
    stale.add(b);
    superseded.push({ stale: b, by: null });
    lifted.push({ stale: b, ...by });
  }
  const terms = new Map(candidates.map((c) => [c, staleTerms(c.text)]));
  for (const a of candidates) {
    for (const b of candidates) {
      if (a === b || stale.has(b) || !(a.order < b.order) || sameRollouts(a, b)) continue;
      // A preference is a person's word: only a stated change of the repository (a fact) retires it.
      if (b.kind === 'preference') {
        if (a.kind === 'fact' && migrationRetires(a.text, b.text)) {
          stale.add(b);
          superseded.push({ stale: b, by: a });
        }
        continue;
      }
      let hit = false;
      for (const t of terms.get(a)!) {
        if (t.failure && (b.kind === 'pitfall' || b.kind === 'task_state' || failedCommands(b.text).length > 0 || /`[^`]+`\s+failed/i.test(b.text))) continue;
        // A run that did not finish failed on its own work in progress (its new test, its half-done change): that
        // failure says nothing about a command that passed before (heldout-o: tallyhouse's `pg_prove … test/*.sql`).
        if (t.failure && a.kind === 'task_state') continue;
        const said = t.failure ? b.text : beyondItsFailures(b);
        if (mentions(said, t.term) && !(t.replacement && mentions(said, t.replacement))) hit = true;
      }
      if (!hit && swappedTool(codeSpans(a.text), codeSpans(b.text))) hit = true;
      if (!hit && a.kind === b.kind && sameSubjectOtherArguments(a.text, b.text)) hit = true;
      if (hit) {
        stale.add(b);
        superseded.push({ stale: b, by: a });
      }
    }
  }
  return { kept: candidates.filter((c) => !stale.has(c)), superseded, lifted };
}
