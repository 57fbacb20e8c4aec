import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryLayout } from '../config/memory.js';
import type { OnProgress } from '../config/progress.js';
import { HeadConflictError } from '../snapshot/errors.js';
import type { Manifest, SnapshotStore } from '../snapshot/types.js';
import type { MemoryEntry } from '../memory/memory-md.js';
import type { Sandbox } from '../sandbox/types.js';
import { copyLayoutFromSandbox } from './layout-io.js';
import { mergeLayouts } from './layout-merge.js';
import { readEntries } from './lessons.js';
import { trustOwnedPaths, type TrustedSource } from './trusted-layout.js';

/**
 * Attempts at the compare-and-swap before the session gives up (each retry follows a fresh merge). A conflict
 * means another session moved the head, so N sessions publishing at once need at most N attempts: 8 lost
 * rollouts when 8 sessions finished together on a shared S3 store (issue 14); 32 covers 16 at once with margin.
 */
const MAX_HEAD_ATTEMPTS = 32;

/**
 * Moves a lineage head forward without losing anyone's rollouts (DESIGN.md step 9). It holds the session's
 * memory layout in a host directory (`layoutDir`) and remembers:
 * - `expected`: the head it believes is current (what the compare-and-swap expects);
 * - `base`: the snapshot whose layout `layoutDir` last matched (the merge base of a three-way merge);
 * - `parent`: the snapshot the next memory snapshot is a delta on.
 * When the swap fails because another session moved the head, it merges that head's memory layout into
 * `layoutDir` (both sides' transcripts and per-rollout files survive; files phase 2 rebuilds take theirs),
 * lets the caller consolidate again, snapshots on top of the new head, and retries.
 */
export class HeadPublisher {
  expected: string | null;
  base: string | null;
  parent: string | null = null;
  conflicts = 0;
  private scratch = 0;

  constructor(
    private readonly store: SnapshotStore,
    private readonly lineage: string,
    private readonly layout: MemoryLayout,
    /** The session's host scratch directory (merge inputs are restored under it). */
    private readonly workDir: string,
    /** The session's rollout id (tags our copy of a conflicting file). */
    private readonly rolloutId: string,
    readonly layoutDir: string,
    start: { headAtStart: string | null; layoutFrom: string | null },
    private readonly onProgress?: OnProgress,
    /** Where mnemara's own memory files are taken from (not the sandbox), and this run's host transcript. */
    private readonly trust?: { source: TrustedSource; transcriptPath: string },
  ) {
    this.expected = start.headAtStart;
    this.base = start.layoutFrom;
  }

  private get dirs(): string[] {
    return [this.layout.memoriesDir, this.layout.sessionsDir];
  }

  /** Restores `snapshotId`'s memory layout into a new scratch directory (empty for `null`). */
  async extract(snapshotId: string | null, dir = join(this.workDir, `layout-${this.scratch++}`)): Promise<string> {
    await rm(dir, { recursive: true, force: true });
    if (snapshotId === null) await mkdir(dir, { recursive: true });
    else await this.store.restoreToDirectory(snapshotId, dir, { paths: this.dirs });
    for (const d of this.dirs) await mkdir(join(dir, d), { recursive: true });
    return dir;
  }

  /** Three-way merges `head`'s memory layout into `layoutDir` (base: the layout it last matched). */
  async mergeHead(head: string): Promise<void> {
    const theirs = await this.extract(head);
    const base = this.base === null ? null : await this.extract(this.base);
    const m = this.layout.memoriesDir;
    const rebuilt = (rel: string): boolean =>
      rel === `${m}/MEMORY.md` ||
      rel === `${m}/memory_summary.md` ||
      rel === `${m}/.state.json` ||
      rel.startsWith(`${m}/raw_memories/`) ||
      rel.startsWith(`${m}/rollout_summaries/`);
    const report = await mergeLayouts({ ours: this.layoutDir, theirs, base, dirs: this.dirs, rebuilt, tag: this.rolloutId });
    this.onProgress?.({
      step: 'merge',
      phase: 'end',
      message: `merged memory of head ${head}: ${report.fromTheirs.length} files from theirs, ${report.conflicts.length} conflicts`,
    });
    this.base = head;
    await Promise.all([rm(theirs, { recursive: true, force: true }), base ? rm(base, { recursive: true, force: true }) : null]);
  }

  /**
   * Step 6, second half: copies the sandbox's memory layout into `layoutDir` and moves the head to the workspace
   * snapshot (or, when the session started off the head, to a memory snapshot that merges the head's lessons in),
   * so the rollout is on the lineage, pending, before the pipeline runs. Returns MEMORY.md's entries as the run
   * left them (the "before" of the session's lesson diff).
   */
  async publishWorkspace(sandbox: Sandbox, workspaceSnapshot: string): Promise<MemoryEntry[]> {
    await copyLayoutFromSandbox(sandbox, this.layoutDir, this.layout);
    const agentWroteOwned = this.trust
      ? await trustOwnedPaths(this.layoutDir, this.layout, this.trust.source, this.store, {
          rolloutId: this.rolloutId,
          transcriptPath: this.trust.transcriptPath,
        })
      : false;
    const entries = await readEntries(join(this.layoutDir, this.layout.memoriesDir, 'MEMORY.md'));
    let candidate = workspaceSnapshot;
    if (this.expected !== null && this.expected !== this.base) {
      // Started off the head (--from, or memory from another lineage): keep the head's lessons too.
      await this.mergeHead(this.expected);
      candidate = (await this.snapshotLayout(workspaceSnapshot)).id;
    } else if (agentWroteOwned) {
      // The workspace snapshot holds what the agent wrote over mnemara's files: the head gets the trusted layout.
      candidate = (await this.snapshotLayout(workspaceSnapshot)).id;
    }
    await this.advance(candidate, async (current) => (await this.snapshotLayout(current)).id);
    return entries;
  }

  /** Snapshots `layoutDir` as a memory snapshot on top of `parent`. */
  async snapshotLayout(parent: string | null): Promise<Manifest> {
    const sessions = await readdir(join(this.layoutDir, this.layout.sessionsDir)).catch(() => [] as string[]);
    const rolloutIds = sessions.filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length)).sort();
    return this.store.create(
      { dir: this.layoutDir },
      {
        lineage: this.lineage,
        kind: 'memory',
        parent,
        scope: this.dirs,
        rolloutIds,
        ...(this.onProgress ? { onProgress: this.onProgress } : {}),
      },
    );
  }

  /**
   * Compare-and-swap `expected` → `candidate`; on a conflict `rebase(current)` must return a new candidate
   * built on top of `current` (after `mergeHead(current)`), and the swap is tried again.
   * Returns the new head. Throws the last `HeadConflictError` after {@link MAX_HEAD_ATTEMPTS} attempts.
   */
  async advance(candidate: string, rebase: (current: string) => Promise<string>): Promise<string> {
    let next = candidate;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.advanceHead(this.lineage, this.expected, next);
        this.expected = next;
        this.base = next;
        this.parent = next;
        return next;
      } catch (err) {
        if (!(err instanceof HeadConflictError) || attempt >= MAX_HEAD_ATTEMPTS || err.current === null) throw err;
        this.conflicts += 1;
        this.expected = err.current;
        this.onProgress?.({ step: 'advance-head', phase: 'progress', message: `head moved to ${err.current}; merging and retrying` });
        // Jitter: sessions that lost together would otherwise rebase and collide together again.
        await new Promise((r) => setTimeout(r, Math.random() * 40 * Math.min(attempt, 8)));
        await this.mergeHead(err.current);
        next = await rebase(err.current);
      }
    }
  }
}
