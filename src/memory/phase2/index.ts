import { readFile, rm } from 'node:fs/promises';
import { archiveEntries } from '../archive.js';
import { dangerousInstruction, heldOutOfPrompt, heldOutWarning } from '../injection.js';
import { parseRawMemories, renderRawMemories } from '../artifacts.js';
import { writeFileAtomic } from '../atomic.js';
import { redact } from '../redact.js';
import type { ModelClient } from '../../agent/client.js';
import type { MemoryConfig } from '../../config/memory.js';
import { logger } from '../../config/logger.js';
import { noProgress, type OnProgress } from '../../config/progress.js';
import type { MemoryPaths } from '../layout.js';
import { parseMemoryMd, type HandbookInfo, type MemoryEntry } from '../memory-md.js';
import { entryId, nearDuplicate, normalizeText } from '../normalize.js';
import { loadPrompt } from '../prompts.js';
import { loadState, type MemoryState } from '../state.js';
import { entryUses } from '../use.js';
import { loadRawInputs, type RolloutInput } from './inputs.js';
import { mergeRawMemories } from './merge.js';
import { consolidateWithModel, phase2Data, type ModelEntry } from './model.js';
import { assignEntries, isForgotten, readHandbook } from './reconcile.js';
import { dropSuperseded, liftedFact } from './supersede.js';
import { entryOfCandidate, retireByMigration, ruleTombstones } from './retire.js';
import { closeFinishedTasks, fixedFlakyFact, loadOutcomes } from './task-state.js';
import { readMemoryMd, renderHandbook, type RenderedHandbook } from './write.js';
import { writeHandbookGuarded } from './guarded-write.js';
import { applyConcurrentEdits, concurrentEdits } from './concurrent-edits.js';
import type { RetiredEntry } from './agent-proposals.js';

/** Version of the deterministic consolidation rules, recorded like a prompt version. */
export const DETERMINISTIC_PHASE2_VERSION = 'consolidate-v1';

/** Options of {@link consolidate}. */
export interface ConsolidateOptions {
  paths: MemoryPaths;
  config: Pick<MemoryConfig, 'maxRawMemories' | 'memoryMdTokens' | 'summaryTokens'>;
  /** `model` needs `client` and `model`. */
  mode: 'deterministic' | 'model';
  client?: ModelClient;
  model?: string;
  /** Consolidate even when no raw memory changed (e.g. after a change of caps). */
  force?: boolean;
  /**
   * A rollout whose agent wrote MEMORY.md itself (lines of those writes in its transcript): what changed in
   * MEMORY.md becomes raw memories of that rollout instead of a person's pinned edits.
   */
  agentEdits?: { rolloutId: string; lines: number[] };
  /**
   * Entries a run's agent corrected or deleted with evidence in its transcript (`judgeAgentEdits`): they leave
   * MEMORY.md for the archive, with a tombstone so that older raw memories cannot bring them back.
   */
  retired?: RetiredEntry[];
  now?: () => Date;
  onProgress?: OnProgress;
}

/** What one consolidation did. Entry ids in `added`/`changed`/`removed`. */
export interface ConsolidationResult {
  /** False when nothing changed since the last consolidation: no model call, no file written. */
  consolidated: boolean;
  added: string[];
  changed: string[];
  removed: string[];
  /** Rollouts that fell out of the newest N raw memories; their files are deleted. */
  forgottenRollouts: string[];
  /**
   * Stale entries retired because a newer one contradicts them: `{id, stale text, by text}`. Each is moved to
   * archive.md with a tombstone (issue 12), never deleted silently.
   */
  superseded: Array<{ id: string; stale: string; by: string }>;
  /** Raw memories files that could not be parsed. */
  invalid: Array<{ rolloutId: string; error: string }>;
  /** Entries the MEMORY.md cap pushed out, moved to `memories/archive.md` (ids; `mnemara memory restore <id>`). */
  archived: string[];
  /** Of `archived`, the entries a person wrote or edited: always named in the run's summary line. */
  archivedPersonal: Array<{ id: string; text: string }>;
  /** Entries a run's agent corrected or deleted with evidence (`retired`), moved to the archive. */
  retiredByAgent: Array<{ id: string; reason: 'corrected' | 'deleted'; rolloutId: string; personal: boolean }>;
  /**
   * Entries kept in MEMORY.md but left out of memory_summary.md: written by no run and telling to fetch and run
   * code, send data away or weaken security, so the read path would not serve them (ids).
   */
  heldOut: string[];
  entries: number;
  modelCalls: number;
  producer: string;
  promptVersion: string;
}

const log = logger('memory.phase2');

/**
 * Phase 2 for one memory layout: the newest `maxRawMemories` raw memories plus the current MEMORY.md
 * (with a person's edits and deletions) → new MEMORY.md and memory_summary.md, ranked and capped.
 * A no-op (zero model calls, nothing written) when the raw memories are what the last consolidation saw.
 * Any error leaves the previous MEMORY.md in place.
 * @throws MnemaraError `INVALID_INPUT` (damaged state), `MODEL_OUTPUT_INVALID`, `USAGE` (model mode without client); SDK errors.
 */
export async function consolidate(options: ConsolidateOptions): Promise<ConsolidationResult> {
  const { paths, config, mode } = options;
  const onProgress = options.onProgress ?? noProgress;
  const now = (options.now ?? (() => new Date()))().toISOString();
  const started = Date.now();
  onProgress({ step: 'phase2', phase: 'start', message: mode });
  const state = await loadState(paths.stateFile);
  const memoryText = await readMemoryMd(paths);
  const book = readHandbook(memoryText, state, now, options.agentEdits?.rolloutId);
  if (options.agentEdits && book.absorbed.length) await absorbAgentEdits(paths, options.agentEdits, book.absorbed);
  const seq = Object.fromEntries(Object.entries(state.rollouts).map(([id, r]) => [id, r.seq ?? -1]));
  const inputs = await loadRawInputs(paths, config.maxRawMemories, seq);
  const prompt = mode === 'model' ? await loadPrompt('phase2') : undefined;
  const producer = mode === 'model' ? `model:${options.model}` : 'deterministic';
  const promptVersion = prompt?.version ?? DETERMINISTIC_PHASE2_VERSION;
  const base: ConsolidationResult = { consolidated: false, added: [], changed: [], removed: [], forgottenRollouts: [], superseded: [], invalid: inputs.invalid, archived: [], archivedPersonal: [], retiredByAgent: [], heldOut: [], entries: book.entries.length, modelCalls: 0, producer, promptVersion };

  if (!options.force && memoryText !== null && state.consolidation?.inputHash === inputs.inputHash) {
    onProgress({ step: 'phase2', phase: 'end', message: 'nothing new', elapsedMs: Date.now() - started });
    return base;
  }
  if (memoryText === null && inputs.kept.length === 0 && inputs.forgotten.length === 0) {
    onProgress({ step: 'phase2', phase: 'end', message: 'no raw memories', elapsedMs: Date.now() - started });
    return base;
  }

  // Corrected or deleted by a run's agent, with evidence: out of the book, tombstoned unless the correction is a
  // rewording of it (then the merged lesson carries the new wording and must not be blocked by the old one).
  const retired = (options.retired ?? []).filter((r) => book.entries.some((e) => e.id === r.entry.id));
  if (retired.length) {
    const ids = new Set(retired.map((r) => r.entry.id));
    book.entries = book.entries.filter((e) => !ids.has(e.id));
    for (const r of retired) {
      if (r.by && nearDuplicate(r.entry.text, r.by)) continue;
      book.deleted[r.entry.id] = { text: normalizeText(r.entry.text), at: now, reason: r.reason === 'corrected' ? 'corrected-by-agent' : 'deleted-by-agent' };
    }
  }
  const forgotten = { ...state.forgotten, ...book.deleted };
  // A bullet a person wrote back after deleting it is theirs again.
  for (const e of book.entries) delete forgotten[e.id];
  const live = new Set(inputs.kept.map((r) => r.rolloutId));
  const times = new Map(inputs.kept.map((r) => [r.rolloutId, r.time]));
  let entries: MemoryEntry[];
  let superseded: ConsolidationResult['superseded'] = [];
  let supersededEntries: MemoryEntry[] = [];
  let modelCalls = 0;
  const repeats: Record<string, number> = {};
  if (mode === 'model') {
    if (!options.client || !options.model || !prompt) throw new Error('consolidate: model mode needs a client and a model');
    const reply = await consolidateWithModel({ client: options.client, model: options.model, prompt, data: phase2Data(book.entries, inputs.kept, forgotten) });
    modelCalls = reply.calls;
    entries = entriesFromModel(reply.entries, book.entries, live, times);
  } else {
    const merged = mergeRawMemories(inputs.kept).filter((c) => !isForgotten(c, forgotten));
    const outcomes = await loadOutcomes(paths, inputs.kept);
    const open = closeFinishedTasks(merged, outcomes);
    const sup = dropSuperseded(open.kept, outcomes);
    const lifted = [
      ...sup.lifted.flatMap((l) => (inputs.kept[l.order] ? [liftedFact(l, inputs.kept[l.order]!)] : [])),
      ...open.fixed.flatMap((f) => (inputs.kept[f.by.order] ? [fixedFlakyFact(f, inputs.kept[f.by.order]!)] : [])),
    ];
    entries = assignEntries([...lifted, ...sup.kept], book.entries, live);
    // A person's entry that a newer stated change of the repository contradicts leaves too (issue 12 item 4).
    const retiredHand = retireByMigration(entries, sup.kept);
    const gone = new Set(retiredHand.map((r) => r.entry));
    entries = entries.filter((e) => !gone.has(e));
    const stale = [
      ...sup.superseded.map((x) => ({ entry: entryOfCandidate(x.stale, book.entries), by: x.by?.text ?? 'a later run in which the same command passed' })),
      ...retiredHand,
    ];
    superseded = stale.map((x) => ({ id: x.entry.id, stale: x.entry.text, by: x.by }));
    supersededEntries = stale.map((x) => x.entry);
    for (const c of sup.kept) for (const id of c.ids) repeats[id] = c.count;
  }
  entries = entries.filter((e) => !forgotten[e.id] && (e.edited || e.sources.length > 0));
  if (mode === 'model') entries = entries.filter((e) => e.edited || !Object.values(forgotten).some((t) => nearDuplicate(t.text, e.text)));

  // A person may have edited MEMORY.md while this ran (the model call takes seconds): re-read it, under the lock
  // the pipeline holds, right before writing, and keep what they changed meanwhile.
  const seen = await readMemoryMd(paths);
  // A person's own structure (headings, code blocks, lists) is kept verbatim, as it is on disk now.
  let blocks = parseMemoryMd(seen ?? memoryText ?? '').blocks;
  const edits = concurrentEdits(memoryText, seen, now);
  if (edits) {
    entries = applyConcurrentEdits(entries, edits);
    Object.assign(forgotten, edits.deleted);
    log.info({ kept: edits.kept.map((e) => e.id), deleted: Object.keys(edits.deleted) }, 'MEMORY.md changed during consolidation; the edits are merged');
  }
  const info: HandbookInfo = { consolidatedAt: now, producer, promptVersion };
  const render = (): RenderedHandbook => renderHandbook(entries, info, { uses: entryUses(entries, state.uses, state.fileUses), repeats }, config, blocks);
  const rendered = render();
  const before = new Map(book.entries.map((e) => [e.id, e]));
  const after = new Set(rendered.entries.map((e) => e.id));
  const result: ConsolidationResult = {
    ...base,
    consolidated: true,
    added: rendered.entries.filter((e) => !before.has(e.id)).map((e) => e.id),
    changed: rendered.entries.filter((e) => {
      const p = before.get(e.id);
      return p && (p.text !== e.text || p.sources.join() !== e.sources.join() || p.kind !== e.kind || p.importance !== e.importance);
    }).map((e) => e.id),
    removed: book.entries.filter((e) => !after.has(e.id)).map((e) => e.id),
    forgottenRollouts: inputs.forgotten,
    superseded,
    entries: rendered.entries.length,
    modelCalls,
    archived: rendered.capped.map((e) => e.id),
    archivedPersonal: rendered.capped.filter((e) => e.edited).map((e) => ({ id: e.id, text: e.text })),
    retiredByAgent: retired.map((r) => ({ id: r.entry.id, reason: r.reason, rolloutId: r.rolloutId, personal: r.entry.edited })),
  };
  if (retired.length) {
    await archiveEntries(paths, retired.map((r) => r.entry), info);
    log.info({ retired: result.retiredByAgent }, `${retired.length} entr${retired.length === 1 ? 'y' : 'ies'} corrected or deleted by a run's agent, with evidence; moved to archive.md`);
  }
  if (rendered.capped.length) {
    // Not deleted: moved to the archive, where `memory search` finds them and `memory restore` brings them back.
    const fellOut = await archiveEntries(paths, rendered.capped, info);
    log.warn({ archived: result.archived, personal: result.archivedPersonal.map((e) => e.id), fellOutOfArchive: fellOut }, `${rendered.capped.length} entr${rendered.capped.length === 1 ? 'y' : 'ies'} moved from MEMORY.md to archive.md by its token cap`);
  }

  if (supersededEntries.length) {
    Object.assign(forgotten, ruleTombstones(supersededEntries, 'superseded', now));
    await archiveEntries(paths, supersededEntries, info);
    log.info({ superseded: result.superseded }, `${supersededEntries.length} superseded entr${supersededEntries.length === 1 ? 'y' : 'ies'} moved to archive.md`);
  }
  if (rendered.capped.length) Object.assign(forgotten, ruleTombstones(rendered.capped, 'capped', now));
  state.forgotten = forgotten;
  state.consolidation = { inputHash: inputs.inputHash, at: now, producer, promptVersion };
  for (const id of inputs.forgotten) state.rollouts[id] = { ...(state.rollouts[id] ?? { attempts: 0, time: '' }), status: 'forgotten', updatedAt: now };
  // The person takes no lock: an edit made from the re-read above up to the rename is merged there too.
  const written = await writeHandbookGuarded(paths, state, rendered, {
    seen,
    at: now,
    remerge: (late) => {
      entries = applyConcurrentEdits(entries, late);
      if (late.blocks) blocks = late.blocks;
      Object.assign(forgotten, late.deleted);
      state.forgotten = forgotten;
      return render();
    },
  });
  result.entries = written.entries.length;
  result.heldOut = written.heldOut.map((e) => e.id);
  if (result.heldOut.length) {
    const { lead, it } = heldOutWarning(result.heldOut.length);
    log.warn({ entries: result.heldOut }, `${lead}: kept in MEMORY.md, left out of memory_summary.md (\`mnemara memory forget <id>\` removes ${it})`);
  }
  await removeRolloutFiles(paths, inputs.forgotten);
  const agentNote = retired.length
    ? `; ${retired.length} corrected or deleted by the agent of ${[...new Set(retired.map((r) => r.rolloutId))].join(', ')} (archived: ${retired.map((r) => `${r.entry.id}${r.entry.edited ? ' (yours)' : ''}`).join(', ')}; mnemara memory restore <id>)`
    : '';
  const mine = new Set(result.archivedPersonal.map((e) => e.id));
  const archivedNote = result.archived.length
    ? `; ${result.archived.length} moved to archive.md by the size cap (${result.archived.map((id) => (mine.has(id) ? `${id} yours` : id)).join(', ')}; mnemara memory restore <id>)`
    : '';
  const supersededNote = result.superseded.length
    ? `; ${result.superseded.length} superseded by newer entries, moved to archive.md (${result.superseded.map((x) => x.id).join(', ')}; mnemara memory restore <id>)`
    : '';
  const heldOutNote = result.heldOut.length ? `; ${result.heldOut.length} left out of the summary as injected (still in MEMORY.md)` : '';
  onProgress({ step: 'phase2', phase: 'end', message: `${result.entries} entries (+${result.added.length} ~${result.changed.length} -${result.removed.length})${supersededNote}${archivedNote}${agentNote}${heldOutNote}`, elapsedMs: Date.now() - started });
  return result;
}

/**
 * Appends the entries an agent wrote to MEMORY.md during its run to that rollout's raw memories (redacted,
 * importance 2 unless the entry said otherwise, evidence = the transcript lines of the writes), so that they
 * go through consolidation like any lesson: merged, superseded, forgotten with the rollout.
 */
async function absorbAgentEdits(paths: MemoryPaths, edits: { rolloutId: string; lines: number[] }, entries: MemoryEntry[]): Promise<void> {
  const file = paths.rawMemories(edits.rolloutId);
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return;
  const { meta, memories } = parseRawMemories(text, file);
  const have = new Set(memories.map((m) => normalizeText(m.text)));
  const lines = edits.lines.length ? edits.lines.slice(0, 20) : [1];
  for (const e of entries) {
    const t = redact(e.text);
    if (have.has(normalizeText(t))) continue;
    memories.push({ kind: e.kind, text: t, evidence: { lines, quote: 'written to MEMORY.md by the agent during the run' }, importance: e.importance === 3 ? 2 : e.importance, keywords: [] });
  }
  await writeFileAtomic(file, renderRawMemories(meta, memories));
}

/** Deletes a forgotten rollout's files from the memory layout: raw memories, rollout summary, transcript. */
export async function removeRolloutFiles(paths: MemoryPaths, rolloutIds: string[]): Promise<void> {
  for (const id of rolloutIds) {
    await rm(paths.rawMemories(id), { force: true });
    await rm(paths.rolloutSummary(id), { force: true });
    await rm(paths.transcript(id), { force: true });
  }
}

/**
 * Turns the model's entries into MEMORY.md entries: sources limited to rollouts in the input (an entry citing
 * none is dropped), ids kept when the model continues an existing entry, a person's edited entries restored
 * word for word (also when the model dropped them).
 */
export function entriesFromModel(reply: ModelEntry[], existing: MemoryEntry[], live: Set<string>, times: Map<string, string>): MemoryEntry[] {
  const out: MemoryEntry[] = [];
  const taken = new Set<string>();
  for (const m of reply) {
    const sources = [...new Set(m.sources)].filter((s) => live.has(s));
    const prev = (m.id ? existing.find((e) => e.id === m.id) : undefined) ?? existing.find((e) => nearDuplicate(e.text, m.text));
    if (sources.length === 0 && !prev?.edited) {
      log.info({ text: m.text.slice(0, 80), cited: m.sources }, 'model entry dropped: it cites no existing rollout');
      continue;
    }
    if (!prev?.edited && dangerousInstruction(m.text)) {
      log.warn({ text: m.text.slice(0, 120) }, 'model entry dropped: it tells to fetch and run code, send data out or weaken security');
      continue;
    }
    // A person's bullet that no run wrote and that the read path holds out (`heldOutOfPrompt`) keeps no run as
    // its author because the model cited one: the citation would carry it into the prompt (trial 26 N13).
    if (prev?.edited && heldOutOfPrompt(prev.text, prev.sources)) sources.length = 0;
    const id = prev?.id ?? entryId(m.text);
    if (taken.has(id)) {
      // A near-duplicate of an entry already kept: the lesson is one, its citations are the union (issue 12).
      const kept = out.find((e) => e.id === id)!;
      kept.sources = [...new Set([...kept.sources, ...sources])];
      kept.at = [kept.at, newestTime(sources, times)].sort().at(-1) ?? kept.at;
      continue;
    }
    taken.add(id);
    const at = sources.map((s) => times.get(s) ?? '').sort().at(-1) ?? '';
    out.push(
      prev?.edited
        ? { ...prev, sources: [...new Set([...sources, ...prev.sources.filter((s) => live.has(s))])], at: at || prev.at }
        : { id, kind: m.kind, text: m.text, sources, importance: m.importance, at, edited: false },
    );
  }
  for (const e of existing) if (e.edited && !taken.has(e.id)) out.push({ ...e, sources: e.sources.filter((s) => live.has(s)) });
  return out;
}

function newestTime(sources: string[], times: Map<string, string>): string {
  return sources.map((s) => times.get(s) ?? '').sort().at(-1) ?? '';
}

export type { RolloutInput, MemoryState };
