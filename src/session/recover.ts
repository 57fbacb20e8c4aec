/**
 * `mnemara recover`: steps 7–9 of a session without an agent run, for the orphans of a lineage (see
 * `orphans.ts`): their transcripts are laid into the head's memory layout, extracted and consolidated, and the
 * head moves to the new memory snapshot by compare-and-swap (merging and consolidating again if it moved).
 */
import { copyFile, lstat, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newRolloutId } from '../agent/ids.js';
import type { OnProgress } from '../config/progress.js';
import type { MnemaraConfig } from '../config/schema.js';
import type { SnapshotStore } from '../snapshot/types.js';
import { sessionModelClient } from './agent-step.js';
import { extractorOf, runPipelineOn } from './memory-step.js';
import { adoptOrphans, findOrphans, removeDeadScratch } from './orphans.js';
import { findPendingOnHeads } from './pending.js';
import { HeadPublisher } from './publish.js';
import { rescueStrandedSandboxes, type Rescue } from './stranded.js';

/** What `recoverLineage` did for one lineage. */
export interface RecoverResult {
  lineage: string;
  /** Rollouts brought into the memory pipeline. */
  adopted: string[];
  /** The branches the adopted rollouts' code is on: orphaned snapshots named now, or named before. */
  branches: { name: string; snapshot: string }[];
  /** The agent's notes under `memories/` taken from orphaned snapshots into the head's memory. */
  notes: string[];
  /** The head after recovery (`null`: unchanged, see `note`). */
  head: string | null;
  /** Rollouts whose extraction failed (they stay pending at the head). */
  pending: string[];
  /** Why each rollout of `pending` failed (the extraction's error, redacted). */
  pendingErrors?: Record<string, string>;
  /** Sandboxes of killed sessions whose /workspace was snapshotted (then adopted as branches) and removed. */
  rescued: Rescue[];
  /** Transcripts left for the lineage's first session (a lineage with no snapshot yet has no memory to adopt into). */
  waiting: string[];
  /** Rollouts that were on the head but not extracted yet (pending), which the pipeline ran for. */
  extracted?: string[];
  note?: string;
}

/**
 * Rescues the stranded sandboxes of `lineage` (`stranded.ts`), then adopts its orphans into its memory and moves its head (retrying like a session, up to
 * `snapshot.headWaitMinutes`). A lineage without a head takes the newest orphaned workspace snapshot as the base
 * of its first head; with neither, the transcripts wait for the lineage's first session (`waiting`, `note`; none counts as adopted).
 * Throws what the store throws (a damaged head: `mnemara lineage reset` first).
 */
export async function recoverLineage(
  store: SnapshotStore,
  config: MnemaraConfig,
  lineage: string,
  onProgress: OnProgress = () => {},
  /** `rescued`: the caller already rescued the stranded sandboxes (of this lineage, these): not tried twice. */
  options: { rescued?: Rescue[] } = {},
): Promise<RecoverResult> {
  const layout = config.memory.layout;
  const head = await store.getHead(lineage);
  const result: RecoverResult = { lineage, adopted: [], branches: [], notes: [], head: null, pending: [], rescued: [], waiting: [] };
  // First the work that is only in the container of a killed session: snapshotted, it becomes an orphan below.
  result.rescued = options.rescued ?? (await rescueStrandedSandboxes(store, config.home, layout, lineage, onProgress));
  const [found] = await findOrphans(store, config.home, lineage);
  // Rollouts a killed session left on the head unextracted (killed in phase 1): the pipeline runs for them too.
  const [pending] = head ? await findPendingOnHeads(store, layout, lineage) : [];
  if (!found && !pending) return { ...result, note: 'nothing orphaned' };
  const orphans = found ?? { lineage, transcripts: [], snapshots: [] };
  await mkdir(join(config.home, 'tmp'), { recursive: true });
  const id = newRolloutId();
  const workDir = await mkdtemp(join(config.home, 'tmp', `session-recover-${id}-p${process.pid}-`));
  try {
    const layoutDir = join(workDir, 'memory');
    const publisher = new HeadPublisher(store, lineage, layout, workDir, `recover-${id}`, layoutDir, { headAtStart: head, layoutFrom: head }, onProgress, undefined, config.snapshot.headWaitMinutes * 60_000, undefined, config.memory);
    await publisher.extract(head, layoutDir);
    const adoption = await adoptOrphans(store, config.home, lineage, layoutDir, layout);
    result.adopted = adoption.rolloutIds;
    result.branches = adoption.branches;
    result.notes = adoption.notes;
    const base = head ?? orphans.snapshots.map((s) => s.id).sort().at(-1) ?? null;
    if (base === null) {
      // Nothing was published, so nothing is adopted yet: a second recover must not count them again.
      return { ...result, adopted: [], notes: [], waiting: result.adopted, note: `lineage ${lineage} has no snapshot yet: its first session adopts the transcripts` };
    }
    if (result.adopted.length === 0 && result.notes.length === 0 && !pending) return { ...result, head, note: 'orphaned snapshots named as branches; no transcript to adopt' };
    // A pending rollout whose transcript the head's `sessions/` lacks (a workspace snapshot that left it out, trial
    // 25 N1) is extracted from this home's copy; with neither, it is said to stay pending, not "extracted".
    const missing = new Map<string, string>();
    for (const r of pending?.rolloutIds ?? []) {
      const inLayout = join(layoutDir, layout.sessionsDir, `${r}.jsonl`);
      if (await lstat(inLayout).then((s) => s.isFile(), () => false)) continue;
      const hosted = join(config.home, 'transcripts', `${r}.jsonl`);
      if (await lstat(hosted).then((s) => s.isFile(), () => false)) {
        await mkdir(join(layoutDir, layout.sessionsDir), { recursive: true });
        await copyFile(hosted, inLayout);
      } else missing.set(r, `no transcript: neither the head's ${layout.sessionsDir}/ nor ${join(config.home, 'transcripts')} holds it`);
    }
    result.extracted = (pending?.rolloutIds ?? []).filter((r) => !missing.has(r));
    // Only the model extractor needs a client (and so a key): the deterministic one runs offline (new-user
    // trial: recover of a killed session exited 2 "No Anthropic API key" though no model was to be called).
    const client = extractorOf(config) === 'model' ? sessionModelClient(config) : undefined;
    const consolidate = async (): Promise<void> => {
      const p = await runPipelineOn(layoutDir, config, client, onProgress, adoption.memoryEdits);
      result.pending = [...p.pending.map((x) => x.rolloutId), ...missing.keys()];
      result.pendingErrors = { ...Object.fromEntries(p.pending.map((x) => [x.rolloutId, x.error])), ...Object.fromEntries(missing) };
    };
    await consolidate();
    // Every pending rollout failed again and nothing was adopted: the head keeps its memory. A new snapshot
    // would hold only a higher attempt count, and each `recover` moved the head for nothing (twelfth trial F13).
    const stillFailing = new Set(result.pending);
    if (result.adopted.length === 0 && result.notes.length === 0 && result.extracted.every((r) => stillFailing.has(r))) {
      return { ...result, head: null, note: 'the pending rollouts failed again; the head is unchanged' };
    }
    const first = await publisher.snapshotLayout(base);
    result.head = await publisher.advance(first.id, async (current) => {
      await consolidate();
      return (await publisher.snapshotLayout(current)).id;
    });
    return result;
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    await removeDeadScratch(config.home);
  }
}
