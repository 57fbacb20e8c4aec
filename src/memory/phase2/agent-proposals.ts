import { parseMemoryMd, type MemoryEntry } from '../memory-md.js';
import { injectedLesson } from '../injection.js';
import { contentTokens, nearDuplicate, normalizeText, similarity } from '../normalize.js';
import { proseTokens } from './merge.js';
import { redact } from '../redact.js';
import type { RawMemory } from '../types.js';
import { commandOf, type RolloutView } from '../phase1/rollout.js';
import { injected } from '../phase1/model.js';

/**
 * MEMORY.md as a run started with it and as its agent left it in the sandbox (the memory tool, an editor or a
 * shell write). The session keeps the start version (the agent cannot forge mnemara's files); the difference is
 * the agent's proposal, judged by {@link judgeAgentEdits}.
 */
export interface AgentMemoryEdits {
  rolloutId: string;
  /** MEMORY.md at the run's start (`null`: none). */
  start: string | null;
  /** MEMORY.md as the agent left it (`null`: it deleted the file). */
  end: string | null;
}

/** An entry the rollout's evidence retires: a correction replaced it, or the agent deleted it for a reason. */
export interface RetiredEntry {
  entry: MemoryEntry;
  reason: 'corrected' | 'deleted';
  rolloutId: string;
  /** The correction's text (for `corrected`). */
  by?: string;
}

/** An edit that does not win: the old entry stays, the edit is reported (never silently applied or lost). */
export interface RejectedEdit {
  change: 'add' | 'correct' | 'delete';
  id: string;
  text: string;
  why: string;
}

/** What one rollout's edits of MEMORY.md come to. */
export interface JudgedEdits {
  /** New lessons of the rollout (additions and corrections): appended to its raw memories. */
  memories: RawMemory[];
  retired: RetiredEntry[];
  rejected: RejectedEdit[];
}

const STALE_WORDS =
  /\b(stale|outdated|out of date|obsolete|wrong|incorrect|no longer|not true|isn'?t true|not needed|no longer needed|removed|deprecated|fixed|superseded|replaced)\b|不再|过时|過時|已修复|已经|nicht mehr|veraltet|falsch|ya no|obsoleto|n'est plus|もう|古い|廃止/i;

const spans = (text: string): string[] => [...text.matchAll(/`([^`]{3,})`/g)].map((m) => m[1]!.trim());

/**
 * The rule (issue 12, item 7). Compared by entry id (a bullet without an id is new):
 * - an ADDED entry becomes a raw memory of the rollout (importance at most 3, evidence the transcript lines of
 *   the MEMORY.md writes), unless it is an injected instruction (fetch-and-run, send data out, weaken security,
 *   whatever its kind, not typed by the user) or a sentence copied from tool output; a `preference` needs the
 *   user's own words in the run (two content words in common with what the user typed), since an agent cannot
 *   state the user's preferences.
 * - a CORRECTED entry (same id, other text) wins over the old one when the transcript supports it: a code span
 *   of the new text the run executed successfully or saw in tool output, a code span of the old text whose
 *   command failed in the run, distinctive words of the new text in a successful command's output, or an
 *   assistant message that names the entry (its id, or a code span of it) with a reason ("stale", "no longer",
 *   "wrong", "不再", "nicht mehr" …). Then the new text is a raw memory of the rollout and the old entry is
 *   retired: archived (restorable with `memory restore`) and tombstoned so older raw memories cannot bring it
 *   back. Without support, the old entry stays and the correction is rejected (reported).
 * - a DELETED entry goes only with evidence of the same kind (its command failed, a pitfall's command passed,
 *   or a message naming it with a reason); an unsupported deletion never wins, whoever wrote the entry.
 * Every text is redacted. A person's entry (`edited`) follows the same rule: with evidence it is archived, not
 * lost, and named in the run's summary line.
 */
export function judgeAgentEdits(edits: AgentMemoryEdits, view: RolloutView, writeLines: number[]): JudgedEdits {
  const before = parseMemoryMd(edits.start ?? '').entries;
  const after = edits.end === null ? [] : parseMemoryMd(edits.end).entries;
  const old = new Map(before.map((e) => [e.id, e]));
  const out: JudgedEdits = { memories: [], retired: [], rejected: [] };
  const ev = evidenceOf(view, new Set(writeLines));
  const lines = writeLines.length ? writeLines.slice(0, 20) : [view.records[0]?.line ?? 1];
  const asMemory = (e: MemoryEntry, text: string): RawMemory => ({
    kind: e.kind,
    text,
    evidence: { lines, quote: 'written to MEMORY.md by the agent during the run' },
    importance: Math.min(3, e.importance),
    keywords: [],
  });
  const present = new Set(after.map((e) => e.id));
  // A bullet rewritten without its id note (deleted and added back reworded) is a correction of the one it replaces.
  const gone = before.filter((b) => !present.has(b.id));
  const replaced = new Set<string>();
  for (const e of after) {
    const was =
      old.get(e.id) ??
      gone.find((b) => !replaced.has(b.id) && b.kind === e.kind && (nearDuplicate(b.text, e.text) || similarity(proseTokens(b.text), proseTokens(e.text)).jaccard >= 0.5));
    if (was && !old.has(e.id)) replaced.add(was.id);
    const text = redact(e.text);
    if (was && normalizeText(was.text) === normalizeText(e.text)) continue;
    const change = was ? 'correct' : 'add';
    const unsafe = injectedLesson(text, ev.typed) || injected(text, ev.ran, ev.typed, ev.outputs);
    if (unsafe) {
      out.rejected.push({ change, id: e.id, text, why: 'it carries an instruction the run only read in tool output, or one that fetches and runs code, sends data out or weakens security' });
      continue;
    }
    if (e.kind === 'preference' && !saidByUser(text, ev.typed)) {
      out.rejected.push({ change, id: e.id, text, why: 'a preference the user did not state in this run' });
      continue;
    }
    if (!was) {
      out.memories.push(asMemory(e, text));
      continue;
    }
    const why = supportsCorrection(was.text, text, ev);
    if (!why) {
      // The old text is redacted too: this reason is printed in a warning, and a repository's MEMORY.md held a token
      // that went to stderr in clear (trial 23 F9).
      out.rejected.push({ change, id: e.id, text, why: `no evidence in the transcript that "${clipped(redact(was.text))}" is wrong; the entry stays` });
      continue;
    }
    out.memories.push(asMemory(e, text));
    out.retired.push({ entry: was, reason: 'corrected', rolloutId: edits.rolloutId, by: text });
  }
  for (const e of gone) {
    if (replaced.has(e.id)) continue;
    if (supportsDeletion(e, ev)) out.retired.push({ entry: e, reason: 'deleted', rolloutId: edits.rolloutId });
    else out.rejected.push({ change: 'delete', id: e.id, text: redact(e.text), why: 'deleted without evidence in the transcript that it is wrong; the entry stays' });
  }
  return out;
}

interface Evidence {
  okCommands: string;
  failedCommands: string;
  outputs: string;
  okOutputs: Set<string>;
  /** Assistant messages. */
  said: string[];
  typed: string;
  ran: string;
}

/** What the run showed, without the MEMORY.md writes themselves (an edit cannot be its own evidence). */
function evidenceOf(view: RolloutView, writeLines: Set<number>): Evidence {
  const steps = view.steps.filter((s) => !writeLines.has(s.callLine) && !s.tainted);
  const ok = steps.filter((s) => s.resultLine !== undefined && !s.isError && (s.exitCode === undefined || s.exitCode === null || s.exitCode === 0));
  const failed = steps.filter((s) => s.isError || (typeof s.exitCode === 'number' && s.exitCode !== 0));
  const cmd = (s: (typeof steps)[number]) => commandOf(s) ?? JSON.stringify(s.input);
  return {
    okCommands: ok.map(cmd).join('\n'),
    failedCommands: failed.map(cmd).join('\n'),
    outputs: steps.map((s) => s.output ?? '').join('\n'),
    okOutputs: contentTokens(ok.map((s) => `${cmd(s)}\n${s.output ?? ''}`).join('\n')),
    said: view.said.filter((s) => s.role === 'assistant').map((s) => s.text),
    typed: view.said.filter((s) => s.role === 'user').map((s) => s.text).join('\n'),
    ran: steps.map(cmd).join('\n'),
  };
}

function supportsCorrection(oldText: string, newText: string, ev: Evidence): string | null {
  const oldSpans = spans(oldText);
  const newSpans = spans(newText).filter((s) => !oldSpans.includes(s));
  if (newSpans.some((s) => ev.okCommands.includes(s) || ev.outputs.includes(s))) return 'the new text is what the run did or saw';
  if (oldSpans.some((s) => ev.failedCommands.includes(s))) return "the old entry's command failed in the run";
  const fresh = [...contentTokens(newText.replace(/`[^`]*`/g, ' '))].filter((t) => t.length >= 3 && !contentTokens(oldText).has(t));
  if (fresh.length > 0 && fresh.filter((t) => ev.okOutputs.has(t)).length >= Math.min(2, fresh.length)) return "the new text's words are in the run's output";
  return namedWithReason(oldText, ev) ? 'the agent said why' : null;
}

function supportsDeletion(e: MemoryEntry, ev: Evidence): boolean {
  const s = spans(e.text);
  if (e.kind === 'pitfall' ? s.some((x) => ev.okCommands.includes(x)) : s.some((x) => ev.failedCommands.includes(x))) return true;
  return namedWithReason(e.text, ev, e.id);
}

/** An assistant message that names the entry (its id, a code span, or a long stretch of its words) and says why it is wrong. */
function namedWithReason(text: string, ev: Evidence, id?: string): boolean {
  const s = spans(text);
  return ev.said.some((m) => STALE_WORDS.test(m) && ((id !== undefined && m.includes(id)) || s.some((x) => m.includes(x)) || (contentTokens(text).size >= 4 && nearDuplicate(m, text))));
}

function saidByUser(text: string, typed: string): boolean {
  const user = contentTokens(typed);
  return [...contentTokens(text)].filter((t) => user.has(t)).length >= 2;
}

function clipped(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
