import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { logger } from '../config/logger.js';
import { redactFile } from '../memory/redact-document.js';
import { join } from 'node:path';
import type { MemoryConfig, MemoryLayout } from '../config/memory.js';
import { refreshSummary } from '../memory/handbook.js';
import type { OnProgress } from '../config/progress.js';
import { HeadConflictError } from '../snapshot/errors.js';
import { retryHeadMove } from '../snapshot/head-retry.js';
import type { Manifest, SnapshotStore } from '../snapshot/types.js';
import type { MemoryEntry } from '../memory/memory-md.js';
import type { AgentMemoryEdits } from '../memory/phase2/agent-proposals.js';
import type { Sandbox } from '../sandbox/types.js';
import { codeOnHead, sameCode } from './code-contained.js';
import { copyLayoutFromSandbox } from './layout-io.js';
import { extractLayout } from './layout-extract.js';
import { mergeLayouts, pipelineFiles } from './layout-merge.js';
import { readEntries } from './lessons.js';
import { trustOwnedPaths, type TrustedSource } from './trusted-layout.js';

/** What `publishWorkspace` did with the session's code. */
export interface PublishOutcome {
  /** MEMORY.md's entries as the run left them (the "before" of the session's lesson diff). */
  entries: MemoryEntry[];
  /** The code did not land on the head (the head moved meanwhile): the workspace snapshot is kept on this branch. */
  branch?: string;
  /**
   * The run started off the head (`--from` an older snapshot or another branch) and its code replaced the head's:
   * the head it replaced is kept on this branch (`LINEAGE@replaced-<rollout-id>`), with that head's id.
   */
  replaced?: { name: string; snapshot: string };
}

const log = logger('session');

/**
 * The largest MEMORY.md of the agent's whose edits are taken as proposals (bytes). A handbook is capped at
 * `memory.memoryMdTokens` (8,000 tokens, some 32 KiB); 1 MiB leaves room for any hand-grown one.
 */
const MAX_AGENT_MEMORY_MD_BYTES = 1024 * 1024;

/** The branch that keeps a session's code or pending rollout when it cannot land on the head (DESIGN.md "branch"). */
export function sessionBranch(lineage: string, rolloutId: string): string {
  return `${lineage}@${rolloutId}`;
}

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
  /** MEMORY.md at the run's start and as the agent left it, when the agent changed it (set by `publishWorkspace`). */
  agentMemoryMd: AgentMemoryEdits | undefined;
  /** MEMORY.md entries by id of the heads merged into `layoutDir` (the latest wins): not this run's lessons. */
  readonly mergedIn = new Map<string, MemoryEntry>();
  /** Where `publishWorkspace` spent its time, ms: `publish.layout-copy`, `publish.trust`, `publish.head`. */
  readonly parts: Record<string, number> = {};
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
    /** How long a head move keeps retrying, in ms (`snapshot.headWaitMinutes`). */
    private readonly boundMs = 10 * 60_000,
    /** Brings orphaned rollouts of the lineage into `layoutDir` (transcripts into `sessions/`, notes into `memories/`); returns what it added (ids, note paths). */
    private readonly adopt?: (layoutDir: string) => Promise<string[]>,
    /** Caps memory_summary.md is rendered with after a MEMORY.md merge (tokens; `memory.memoryMdTokens`, `memory.summaryTokens`). */
    private readonly summaryCaps?: Pick<MemoryConfig, 'memoryMdTokens' | 'summaryTokens'>,
  ) {
    this.expected = start.headAtStart;
    this.base = start.layoutFrom;
  }

  private get dirs(): string[] {
    return [this.layout.memoriesDir, this.layout.sessionsDir];
  }

  /** Restores `snapshotId`'s memory layout into a new scratch directory (empty for `null`). */
  async extract(snapshotId: string | null, dir = join(this.workDir, `layout-${this.scratch++}`)): Promise<string> {
    return extractLayout(this.store, snapshotId, dir, this.layout);
  }

  /** Three-way merges `head`'s memory layout into `layoutDir` (base: the layout it last matched). */
  async mergeHead(head: string): Promise<void> {
    const theirs = await this.extract(head);
    const base = this.base === null ? null : await this.extract(this.base);
    const m = this.layout.memoriesDir;
    const rebuilt = pipelineFiles(m);
    const memoryMd = `${m}/MEMORY.md`;
    for (const e of await readEntries(join(theirs, memoryMd))) this.mergedIn.set(e.id, e);
    const report = await mergeLayouts({ ours: this.layoutDir, theirs, base, dirs: this.dirs, memoryMd, rebuilt, tag: this.rolloutId });
    // The head's summary describes the head's MEMORY.md, not the merged one; when the pipeline then finds nothing
    // new to consolidate (the other session already extracted our rollout) it would stay so until a later run.
    if (report.merged.includes(memoryMd) && this.summaryCaps) await refreshSummary(this.layoutDir, { ...this.summaryCaps, layout: this.layout });
    const both = report.merged.length ? `; both sides kept in ${report.merged.join(', ')}` : '';
    this.onProgress?.({
      step: 'merge',
      phase: 'end',
      message: `merged memory of head ${head}: ${report.fromTheirs.length} files from theirs, ${report.conflicts.length} conflicts${both}`,
    });
    this.base = head;
    await Promise.all([rm(theirs, { recursive: true, force: true }), base ? rm(base, { recursive: true, force: true }) : null]);
  }

  /**
   * Step 6, second half: copies the sandbox's memory layout into `layoutDir` and moves the head to the workspace
   * snapshot (or, when the session started off the head, to a memory snapshot that merges the head's lessons in),
   * so the rollout is on the lineage, pending, before the pipeline runs. Orphaned rollouts of the lineage (see
   * `orphans.ts`) are adopted into the layout on the way. When the head moved since the session started, the
   * head gets a memory snapshot on top of the new head and the code is kept on the branch `LINEAGE@<rollout-id>`,
   * unless the head moved only in its memory layout: then the code lands on the head with the merged memory.
   * Throws `HeadWaitExpiredError` when the head kept moving past the bound; the caller records the branch then.
   */
  async publishWorkspace(sandbox: Sandbox, workspaceSnapshot: string): Promise<PublishOutcome> {
    let t = Date.now();
    const lap = (name: string): void => {
      const now = Date.now();
      this.parts[`publish.${name}`] = now - t;
      t = now;
    };
    await copyLayoutFromSandbox(sandbox, this.layoutDir, this.layout);
    lap('layout-copy');
    const memoryMd = join(this.layoutDir, this.layout.memoriesDir, 'MEMORY.md');
    // The agent's MEMORY.md is read only up to a bound: a 22 MB one (written with bash past the memory tool's cap)
    // took the host's pipeline 64 s and 1.2 GB (thirteenth trial F17). Over it, its edits are not proposals.
    const agentBytes = this.trust ? await lstat(memoryMd).then((s) => s.size, () => 0) : 0;
    const oversized = agentBytes > MAX_AGENT_MEMORY_MD_BYTES;
    if (oversized) log.warn({ bytes: agentBytes, maxBytes: MAX_AGENT_MEMORY_MD_BYTES }, "the MEMORY.md the agent wrote is over the size a handbook can have: its edits are not taken (the lineage's MEMORY.md stays)");
    const end = this.trust && !oversized ? await readFile(memoryMd, 'utf8').catch(() => null) : null;
    const agentWroteOwned = this.trust
      ? await trustOwnedPaths(this.layoutDir, this.layout, this.trust.source, this.store, {
          rolloutId: this.rolloutId,
          transcriptPath: this.trust.transcriptPath,
        })
      : false;
    lap('trust');
    if (this.trust) {
      // The trusted copy replaced the agent's MEMORY.md: its edits go to the pipeline as this rollout's proposals.
      // Compared as the sandbox's copy was redacted before it was read (step 6): a repository's MEMORY.md with a
      // token came back redacted, and that was judged the agent's "correction" of every such entry (trial 23 F9).
      const read = await readFile(memoryMd, 'utf8').catch(() => null);
      const start = read === null ? null : redactFile('MEMORY.md', read);
      this.agentMemoryMd = !oversized && start !== end ? { rolloutId: this.rolloutId, start, end } : undefined;
    }
    const entries = await readEntries(memoryMd);
    const adopted = this.adopt ? await this.adopt(this.layoutDir) : [];
    let candidate = workspaceSnapshot;
    let replaced: PublishOutcome['replaced'];
    if (this.expected !== null && this.expected !== this.base) {
      // Started off the head (--from, or memory from another lineage): keep the head's lessons too.
      await this.mergeHead(this.expected);
      candidate = (await this.snapshotLayout(workspaceSnapshot)).id;
      // And the head's code, when this run's replaces it (twelfth trial: a later prune deleted the only snapshot
      // of the work `--from` an older snapshot had put aside without a word).
      replaced = await this.keepReplacedHead(this.expected, workspaceSnapshot);
    } else if (agentWroteOwned || adopted.length > 0) {
      // The workspace snapshot holds what the agent wrote over mnemara's files, or lacks the adopted transcripts:
      // the head gets the trusted layout.
      candidate = (await this.snapshotLayout(workspaceSnapshot)).id;
    }
    const conflictsBefore = this.conflicts;
    // A head that moved only in its memory (a hand memory edit, `memory forget`) still has the code this session
    // started from: the session's code goes on it (the merged memory on top of the workspace snapshot), no branch.
    const started = (await this.store.get(workspaceSnapshot)).parent;
    const head = await this.advance(candidate, async (current) => {
      const onCode = started !== null && (await sameCode(this.store, started, current, this.dirs)) ? workspaceSnapshot : current;
      return (await this.snapshotLayout(onCode)).id;
    });
    lap('head');
    if (this.conflicts === conflictsBefore) return { entries, ...(replaced ? { replaced } : {}) };
    // Another session already put the same code on the head (under contention, the usual case): no branch.
    if (await codeOnHead(this.store, workspaceSnapshot, head, this.dirs)) {
      this.onProgress?.({ step: 'publish', phase: 'progress', message: `the head moved meanwhile; it already holds this session's code, so no branch is kept` });
      return { entries, ...(replaced ? { replaced } : {}) };
    }
    // The head now holds our memory on top of someone else's code: ours is kept, named, on a branch.
    const branch = sessionBranch(this.lineage, this.rolloutId);
    await this.store.moveBranch(branch, null, workspaceSnapshot);
    this.onProgress?.({ step: 'publish', phase: 'progress', message: `code kept on branch ${branch} (the head moved meanwhile)` });
    return { entries, branch, ...(replaced ? { replaced } : {}) };
  }

  /**
   * Names `head` as the branch `LINEAGE@replaced-<rollout-id>` when its code (the tree outside the memory layout)
   * differs from the code of `workspaceSnapshot`'s start: the head this run's code replaces. `undefined` when the code is
   * the same, or the branch could not be written (logged; the run goes on).
   */
  private async keepReplacedHead(head: string, workspaceSnapshot: string): Promise<PublishOutcome['replaced']> {
    const started = (await this.store.get(workspaceSnapshot)).parent;
    if (started !== null && (await sameCode(this.store, started, head, this.dirs))) return undefined;
    const name = `${this.lineage}@replaced-${this.rolloutId}`;
    try {
      await this.store.moveBranch(name, null, head);
    } catch (err) {
      log.warn({ err: (err as Error).message, head }, 'could not keep the replaced head as a branch');
      return undefined;
    }
    this.onProgress?.({ step: 'publish', phase: 'progress', message: `the head's code before this run (${head}) kept on branch ${name}` });
    return { name, snapshot: head };
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
   * built on top of `current` (after `mergeHead(current)`), and the swap is tried again, with backoff and
   * jitter (`retryHeadMove`), until it lands. Returns the new head.
   * @throws HeadWaitExpiredError past the time bound; `HeadConflictError` when the head was deleted meanwhile.
   */
  async advance(candidate: string, rebase: (current: string) => Promise<string>): Promise<string> {
    let next = candidate;
    return retryHeadMove(
      this.lineage,
      async () => {
        await this.store.advanceHead(this.lineage, this.expected, next);
        this.expected = next;
        this.base = next;
        this.parent = next;
        return next;
      },
      async (err) => {
        if (!(err instanceof HeadConflictError)) return; // the ref's lock stayed held: try the same swap again
        if (err.current === null) throw err; // the head was deleted: nothing to merge with
        this.conflicts += 1;
        this.expected = err.current;
        this.onProgress?.({ step: 'advance-head', phase: 'progress', message: `head moved to ${err.current}; merging and retrying` });
        await this.mergeHead(err.current);
        next = await rebase(err.current);
      },
      { boundMs: this.boundMs },
    );
  }
}
