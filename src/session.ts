/**
 * One session, as DESIGN.md's ten steps: resolve the start, start the sandbox, restore, read memory, run the
 * agent, snapshot the workspace, extract (phase 1), consolidate (phase 2), snapshot the memory and move the
 * lineage head by compare-and-swap, remove the sandbox. The order protects work: the workspace snapshot is taken
 * and the head moved to it before the pipeline runs, so a pipeline failure or a crash leaves the rollout pending
 * on the lineage (its transcript in `sessions/`, no raw memories yet) for the next session to extract.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newRolloutId } from './agent/ids.js';
import type { ModelClient } from './agent/client.js';
import { MnemaraError } from './config/errors.js';
import { explicitStore, ioFailureCode, ioFailureError, type SavedWork } from './config/io-errors.js';
import { snapshotFailed } from './session/snapshot-failed.js';
import { logger } from './config/logger.js';
import type { OnProgress } from './config/progress.js';
import { createSandbox, keepSandbox } from './sandbox/index.js';
import { assertTreeFits } from './snapshot/fits.js';
import type { Sandbox } from './sandbox/types.js';
import { isS3Store, openSnapshotStore, type SnapshotStore } from './snapshot/index.js';
import { runAgentStep, sessionModelClient } from './session/agent-step.js';
import { eventSink, progressOf, step } from './session/context.js';
import { diffLessons, readEntries } from './session/lessons.js';
import { readMemoryBlock, runPipelineOn } from './session/memory-step.js';
import { adoptOrphans, endSessionRecord, markSessionRestored, openSessionScratch, recordRunClock, recordSessionStart, removeDeadScratch, removeSpentRecords } from './session/orphans.js';
import { HeadPublisher } from './session/publish.js';
import { pendingOnBranch } from './session/pending-branch.js';
import { rescueStrandedSandboxes, sessionHasSandbox } from './session/stranded.js';
import { detachGoneSandboxDisks } from './sandbox/docker/gone-disks.js';
import { assertHomeOutside, assertStoreUsable, assertWorkspace, resolveStart, restoreWorkspace, startChoice, workspaceLineage } from './session/start.js';
import { snapshotSandbox, type ChangeBaseline, type SnapshotTimings, type WorkspaceSnapshotMode } from './session/snapshot-sandbox.js';
import { listWorkspace, type WorkspaceListing } from './session/workspace-listing.js';
import { inHostCheckout, sandboxClock, type WasThere } from './session/credential-files.js';
import { prepareWorkspace, type PreparedWorkspace } from './session/prepare-snapshot.js';
import { cacheEnabled, checkCachedFill, fillFromCache, keepInCache, planCachedStart, refillWhole } from './session/cached-restore.js';
import { DockerSandbox } from './sandbox/docker/docker-sandbox.js';
import { copyLayoutFromSandbox } from './session/layout-io.js';
import type { SessionEvent, SessionHooks, SessionNotice, SessionOptions, SessionResult, SessionStep } from './session/types.js';
import { startNotice } from './session/host-memory.js';
import { keepLayoutInSnapshots } from './memory/layout.js';
import { networkNotice } from './session/network-notice.js';
import { hostCredentialFiles, hostCredentialsNotice } from './session/host-credentials.js';
import { largeSnapshotNotice } from './session/large-snapshot.js';

export * from './session/types.js';
export { defaultLineage, directoryLineage, lineageFromRemote, workspaceLineage } from './session/start.js';
export { SESSION_INSTRUCTIONS } from './session/agent-step.js';

const log = logger('session');

/**
 * Runs one session end to end and returns what it did. Events (step progress, model turns, tool calls) go to
 * `hooks.onEvent` as they happen. The agent's own failures (model errors, turn limits, Ctrl-C via
 * `options.signal`) are outcomes, not exceptions: the workspace is still snapshotted and the head still moved.
 * A memory pipeline failure is reported in `pipelineError`; the rollout then stays pending at the head.
 * Throws `MnemaraError` when mnemara itself cannot go on: usage (bad lineage or snapshot id, missing workspace,
 * no API key) or failure (no Docker, a corrupt store, the workspace snapshot could not be written — the
 * transcript is then still at `<home>/transcripts/<rollout-id>.jsonl`, where it always is).
 */
export async function runSession(options: SessionOptions, hooks: SessionHooks = {}): Promise<SessionResult> {
  const began = Date.now();
  const emit = eventSink(hooks);
  const onProgress = progressOf(emit);
  const timings: Partial<Record<SessionStep, number>> = {};
  const { config } = options;
  const workspace = await assertWorkspace(options.workspace);
  await assertHomeOutside(workspace, config.home, config.snapshot.store ?? config.home);
  const chosen = options.lineage !== undefined ? { lineage: options.lineage, source: 'named' as const } : await workspaceLineage(workspace);
  const lineage = chosen.lineage;
  const client = sessionModelClient(config);
  // The memory layout is in every snapshot, whatever `snapshot.ignore` says (a repository's `memories` pattern).
  const snapshotIgnore = keepLayoutInSnapshots(config.snapshot.ignore, config.memory.layout);
  const store = await openSnapshotStore(config.snapshot.store as string, { ...config.snapshot, ignore: snapshotIgnore }, { home: config.home });
  const rolloutId = newRolloutId();
  const transcriptPath = join(config.home, 'transcripts', `${rolloutId}.jsonl`);
  await removeDeadScratch(config.home);
  if (!isS3Store(store)) await assertStoreUsable(store.tmpDir, explicitStore(config.home, config.snapshot.store).store);
  // A killed session's work that is only in its container becomes a snapshot this session adopts as a branch.
  if (config.sandbox.backend === 'docker') {
    await rescueStrandedSandboxes(store, config.home, config.memory.layout, lineage, onProgress);
    // Disks of killed sessions whose container someone else removed: deleted images that hold host disk space.
    await detachGoneSandboxDisks(config.home);
  }
  await removeSpentRecords(config.home, lineage, config.sandbox.backend === 'docker' ? sessionHasSandbox : async () => false);
  const workDir = await openSessionScratch(config.home, rolloutId, lineage, store.root);
  const saved: SavedWork = { home: config.home, ...explicitStore(config.home, config.snapshot.store) };
  const notices: SessionNotice[] = [];
  const notify = (notice: SessionNotice): void => void (notices.push(notice), emit({ type: 'notice', notice }));
  let landed = false;
  try {
    const baseLineage = 'base' in chosen ? chosen.base : undefined;
    const branch = 'branch' in chosen ? chosen.branch : undefined;
    const result = await stepsOf({ options, emit, onProgress, timings, began, workspace, lineage, lineageSource: chosen.source, ...(baseLineage ? { baseLineage } : {}), ...(branch ? { branch } : {}), client, store, rolloutId, transcriptPath, workDir, saved, notify });
    if (notices.length) result.notices = notices;
    landed = result.head !== null || result.nothingSaved === true;
    return result;
  } catch (err) {
    if (!(err instanceof MnemaraError) && ioFailureCode(err)) throw ioFailureError(err, 'running the session', saved);
    throw err;
  } finally {
    await endSessionRecord(config.home, rolloutId, landed);
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

interface SessionContext {
  options: SessionOptions;
  emit: (event: SessionEvent) => void;
  onProgress: OnProgress;
  timings: Partial<Record<SessionStep, number>>;
  began: number;
  workspace: string;
  lineage: string;
  lineageSource: 'named' | 'git remote' | 'directory';
  /** The default branch's lineage when the default lineage is a branch's (its first run takes that memory). */
  baseLineage?: string;
  /** The git branch the default lineage was named for. */
  branch?: string;
  client: ModelClient;
  store: SnapshotStore;
  rolloutId: string;
  transcriptPath: string;
  workDir: string;
  /** What is saved so far (named by the error when a later step fails). */
  saved: SavedWork;
  /** Emits a notice and keeps it for the result. */
  notify: (notice: SessionNotice) => void;
}

/** Steps 1–10 (see the module comment); `runSession` sets up their context and removes the scratch space. */
async function stepsOf(ctx: SessionContext): Promise<SessionResult> {
  const { options, emit, onProgress, timings, began, workspace, lineage, lineageSource, baseLineage, branch, client, store, rolloutId, transcriptPath, workDir, saved, notify } = ctx;
  const parts: Record<string, number> = {};
  const { config } = options;
  const layout = config.memory.layout;

  // 1. Resolve the start: --from, else --memory-from, else the lineage head, else a fresh copy.
  const start = await step('resolve', emit, timings, () => resolveStart(store, { lineage, ...startChoice(options), ...(baseLineage ? { memoryFromIfEmpty: baseLineage } : {}) }), (s) =>
    s.snapshotId
      ? `${s.kind} ${s.snapshotId} (lineage ${lineage}${s.kind === 'memory-from' && options.memoryFrom === undefined ? `; its first run: this checkout with the memory of ${baseLineage}` : ''})`
      : `fresh copy of ${workspace} (lineage ${lineage})`,
  );
  emit({ type: 'started', rolloutId, lineage, lineageSource, ...(branch ? { branch } : {}), transcriptPath });
  // The parent of its workspace snapshot (step 6), kept where a rescue after a kill finds it.
  await recordSessionStart(config.home, rolloutId, start.snapshotId ?? start.headAtStart ?? null, start.kind === 'fresh' || start.kind === 'memory-from' ? workspace : undefined);

  // A fresh copy is checked against the limits its workspace snapshot will apply before anything is copied: a
  // file no snapshot could hold would otherwise be copied in and refused only after the agent's whole run.
  if (start.kind === 'fresh' || start.kind === 'memory-from') {
    const layoutDirs = start.kind === 'memory-from' ? [`/${layout.memoriesDir}`, `/${layout.sessionsDir}`] : [];
    await assertTreeFits(workspace, [...config.snapshot.ignore, ...layoutDirs]);
    const credentials = hostCredentialsNotice(workspace, await hostCredentialFiles(workspace, [...config.snapshot.ignore, ...layoutDirs]));
    if (credentials) notify(credentials);
  }

  // 2. Start the hardened sandbox: on a copy of the lineage's cached workspace image when one fits the start
  // (checked after the fill; docs/session.md "Restore what is missing"), and keeping its image to cache it.
  const fromSnapshot = (start.kind === 'head' || start.kind === 'snapshot') && start.snapshotId !== null;
  const caching = fromSnapshot && cacheEnabled(config);
  const planned = Date.now();
  const plan = caching ? await planCachedStart(store, lineage, start, config) : { reason: 'the workspace cache is off or the start is not a snapshot' };
  if (caching) parts['restore.cache-plan'] = Date.now() - planned;
  if ('reason' in plan && caching) log.debug({ reason: plan.reason }, 'restoring the whole tree (no cached workspace image)');
  const sandbox: Sandbox = await step('sandbox', emit, timings, () =>
    createSandbox({
      ...config.sandbox,
      home: config.home,
      sessionId: rolloutId,
      onProgress,
      ...(caching ? { keepWorkspaceImage: true } : {}),
      ...('entry' in plan ? { workspaceImageFrom: plan.entry.imagePath } : {}),
    }), (s) => `${s.kind} ${s.id.slice(0, 12)}`,
  );
  const cached = 'entry' in plan && sandbox instanceof DockerSandbox && sandbox.workspaceFromImage ? plan : null;
  let result: SessionResult;
  let keepForRescue = false;
  try {
    // 3. Restore the start into /workspace. A restored snapshot is listed right away (the baseline the run's
    // changes are found against, step 6), and mnemara's own memory files are copied out before the agent runs
    // (the trusted copy publish needs, without unpacking the snapshot again).
    let baseline: ChangeBaseline | undefined;
    let trustedDir: string | undefined;
    let hostSkipped: Array<{ path: string; reason: string }> = [];
    await step('restore', emit, timings, async () => {
      const began = Date.now();
      hostSkipped = await restoreWorkspace(sandbox, store, start, {
        workspace, ignore: config.snapshot.ignore, layout, onProgress,
        // A fill that fails (a path in a directory the sandbox user may not write) is caught by the check below.
        ...(cached && start.snapshotId ? { fill: () => fillFromCache(sandbox, store, cached, start.snapshotId!).catch((err: Error) => log.debug({ err: err.message }, 'replacing paths in the cached image failed')) } : {}),
        afterFill: async () => {
          parts['restore.fill'] = Date.now() - began;
          if ((start.kind !== 'snapshot' && start.kind !== 'head') || !start.snapshotId) return;
          const list = async (): Promise<WorkspaceListing | null> => {
            const listed = Date.now();
            const l = await listWorkspace(sandbox, { pause: true }).catch((err: Error) => {
              log.info({ reason: err.message }, 'no change baseline: the workspace snapshot will read the whole stream');
              return null;
            });
            parts['restore.listing'] = (parts['restore.listing'] ?? 0) + Date.now() - listed;
            return l;
          };
          let listing = await list();
          if (cached) {
            const checked = Date.now();
            const doubt = listing ? checkCachedFill(listing, cached) : 'no listing to check it with';
            parts['restore.cache-check'] = Date.now() - checked;
            parts['restore.cached'] = doubt ? 0 : 1;
            if (doubt) {
              log.warn({ reason: doubt, cachedSnapshot: cached.entry.snapshot }, 'the cached workspace image is not the start snapshot: restoring the whole tree');
              const refilled = Date.now();
              await refillWhole(sandbox, store, start.snapshotId);
              parts['restore.refill'] = Date.now() - refilled;
              listing = await list();
            }
          } else if (caching) {
            parts['restore.cached'] = 0;
          }
          if (listing) baseline = { listing, parent: start.snapshotId, ignore: keepLayoutInSnapshots(config.snapshot.ignore, layout) };
          // The restored tree is the start snapshot exactly, and nothing but mnemara has run yet: cache it, unless
          // the image just used already is that snapshot's.
          if (caching && listing && !(cached && parts['restore.cached'] === 1 && cached.entry.snapshot === start.snapshotId)) {
            const kept = Date.now();
            await keepInCache(sandbox, store, config, lineage, start.snapshotId, listing);
            parts['restore.cache-write'] = Date.now() - kept;
          }
        },
      });
      if (start.snapshotId) {
        const copied = Date.now();
        trustedDir = join(workDir, 'trusted-layout');
        await copyLayoutFromSandbox(sandbox, trustedDir, layout);
        parts['restore.trusted-layout'] = Date.now() - copied;
      }
    });
    // From here the sandbox may hold work: a killed session's container is rescued, no longer dropped.
    await markSessionRestored(config.home, rolloutId);
    // The prompt tells the agent to keep notes in memories/: a first run on a new lineage has none yet.
    await sandbox.exec(['mkdir', '-p', '--', `${sandbox.workspaceDir}/${layout.memoriesDir}`], { timeoutMs: 10_000 }).catch((err: Error) => log.warn({ err: err.message }, 'could not create the memory folder in the workspace'));
    // The head is the truth, and --memory-from replaces the checkout's memory: say so when the checkout's differs.
    const notice = await startNotice(start, workspace, layout, trustedDir, lineage, options.memoryFrom ?? baseLineage ?? lineage);
    if (notice) notify(notice);
    const network = networkNotice(config);
    if (network) notify(network);

    // 4. Read memory: memory_summary.md within its budget, fenced as data, for the system prompt.
    const memory = config.memory.read
      ? await step('memory-read', emit, timings, () => readMemoryBlock(sandbox, config, options.task, workDir, client), (m) => m.note)
      : { block: undefined, note: 'memory read is off' };

    // 5. Run the agent; its failures are outcomes. The transcript is appended on the host as the run goes. The
    // sandbox clock marks what the run creates (credential files are looked for among those, step 6).
    const runClock = await sandboxClock(sandbox);
    await recordRunClock(config.home, rolloutId, runClock);
    const run = await step('agent', emit, timings, () =>
      runAgentStep({ sandbox, client, config, task: options.task, memoryBlock: memory.block, rolloutId, transcriptPath, emit, options }),
      (r) => `${r.outcome} after ${r.turns} turns`,
    );

    // Ended before the model's first reply (a Ctrl-C during the restore, a base URL that answers 404, a refused
    // key): no tool ran, nothing was done, so nothing is saved. A snapshot of the untouched tree made a lineage and
    // an empty rollout on every failing attempt (thirteenth trial F11, F20).
    if (run.turns === 0 && run.outcome !== 'completed') {
      await rm(transcriptPath, { force: true });
      return {
        rolloutId, lineage, start, outcome: run.outcome, ...(run.error ? { agentError: run.error } : {}), turns: 0, usage: run.usage, workspaceSnapshot: null, memorySnapshot: null, head: start.headAtStart,
        pending: false, headConflicts: 0, lessons: null, nothingSaved: true, timings: { ...timings, totalMs: Date.now() - began, parts },
      };
    }

    // 6. Snapshot the workspace, whatever the outcome, and move the head to it: from here on the rollout is safe.
    const parent = start.snapshotId ?? start.headAtStart;
    let snapshotMode: WorkspaceSnapshotMode | undefined;
    let prepared: PreparedWorkspace | undefined;
    const inherited = parent ? (await store.get(parent)).rolloutIds : [];
    const workspaceSnapshot = await step('snapshot-workspace', emit, timings, async () => {
      // A stable tree without secrets: leftover processes stopped, notes redacted, token and credential files set aside.
      const wasThere: WasThere = start.kind === 'snapshot' || start.kind === 'head' ? (rel) => (baseline ? baseline.listing.entries.has(rel) : 'unknown') : inHostCheckout(workspace);
      prepared = await prepareWorkspace(sandbox, { home: config.home, rolloutId, layout, runClock, wasThere, keep: config.snapshot.keepCredentialFiles, fromSnapshot: start.kind === 'snapshot' || start.kind === 'head', onProgress });
      Object.assign(parts, prepared.timings);
      // What the host copy left out (a FIFO, a socket) is missing from this snapshot too: its manifest says so.
      const skipped = [...prepared.skipped, ...hostSkipped.filter((h) => !prepared!.skipped.some((p) => p.path === h.path)).map((h) => ({ path: h.path, reason: `not copied from the host workspace into the sandbox: ${h.reason}` }))];
      const report: { mode?: WorkspaceSnapshotMode; timings?: SnapshotTimings } = {};
      try {
        // A fresh or --memory-from start worked on the host directory's copy, not on `parent` (whose memory it had):
        // the manifest says so, or apply would take `parent` for the tree the run started from.
        const fromHost = start.kind === 'fresh' || start.kind === 'memory-from' ? { workspaceFrom: 'host' as const } : {};
        return await snapshotSandbox(sandbox, store, { lineage, kind: 'workspace', parent, rolloutIds: [...new Set([...inherited, rolloutId])], onProgress, ...(skipped.length ? { skipped } : {}), ...fromHost }, baseline, report);
      } finally {
        snapshotMode = report.mode;
        const t = report.timings ?? {};
        for (const [k, v] of [['snapshot.listing', t.listingMs], ['snapshot.transfer-out', t.transferOutMs], ['snapshot.pack', t.packMs], ['snapshot.full-stream', t.fullStreamMs]] as const) {
          if (v !== undefined) parts[k] = v;
        }
      }
    }, (m) => `${m.id}${snapshotMode?.kind === 'changes' ? ` (${snapshotMode.paths} changed paths, ${snapshotMode.deleted} deleted)` : ''}`,
    ).catch(async (err: unknown) => {
      const failed = await snapshotFailed(err, sandbox, transcriptPath, saved);
      keepForRescue = failed.kept; // the work exists only in the container now
      throw failed.error;
    });
    saved.transcriptPath = transcriptPath;
    saved.workspaceSnapshot = workspaceSnapshot.id;
    const large = largeSnapshotNotice(workspaceSnapshot, parent, lineage);
    if (large) notify(large);
    const layoutDir = join(workDir, 'memory');
    const publisher = new HeadPublisher(store, lineage, layout, workDir, rolloutId, layoutDir, {
      headAtStart: start.headAtStart,
      layoutFrom: start.snapshotId,
    }, onProgress, {
      source: trustedDir ? { hostDir: trustedDir } : start.snapshotId ? { snapshotId: start.snapshotId } : { hostDir: workspace },
      transcriptPath,
    }, config.snapshot.headWaitMinutes * 60_000, async (dir) => {
      adoption = await adoptOrphans(store, config.home, lineage, dir, layout, rolloutId);
      return [...adoption.rolloutIds, ...adoption.notes]; // any of them: the head gets the merged layout
    }, config.memory);
    let adoption: Awaited<ReturnType<typeof adoptOrphans>> | undefined;
    const published = await step('publish', emit, timings, () => publisher.publishWorkspace(sandbox, workspaceSnapshot.id), () =>
      `head of ${lineage} → ${publisher.expected}`,
    ).catch(async (err: unknown) => {
      throw await pendingOnBranch(err, { store, lineage, rolloutId, workspaceSnapshot: workspaceSnapshot.id, saved });
    });
    const before = published.entries;
    Object.assign(parts, publisher.parts);

    result = {
      rolloutId,
      lineage,
      start,
      outcome: run.outcome,
      ...(run.error ? { agentError: run.error } : {}),
      turns: run.turns,
      usage: run.usage,
      workspaceSnapshot: workspaceSnapshot.id,
      memorySnapshot: null,
      head: publisher.expected,
      pending: true,
      headConflicts: 0,
      lessons: null,
      ...(published.branch ? { branch: { name: published.branch, snapshot: workspaceSnapshot.id, reason: 'head-moved' as const } } : {}),
      ...(published.replaced ? { replacedHead: published.replaced } : {}),
      ...(adoption?.rolloutIds.length ? { adopted: adoption.rolloutIds } : {}),
      ...(adoption?.branches.length ? { adoptedBranches: adoption.branches } : {}),
      transcriptPath,
      timings: { totalMs: 0 },
      ...(snapshotMode ? { workspaceSnapshotMode: snapshotMode } : {}),
      ...(prepared?.credentialFiles.length ? { credentialFiles: prepared.credentialFiles } : {}),
      ...(prepared?.secretFiles.length ? { secretFiles: prepared.secretFiles } : {}),
      ...(prepared?.secretKeyFiles.length ? { secretKeyFiles: prepared.secretKeyFiles } : {}),
      ...(prepared?.leftoverProcesses ? { leftoverProcesses: prepared.leftoverProcesses } : {}),
    };
    if (config.memory.generate && options.hurrySignal?.aborted) result.memorySkipped = 'stopped';
    else if (config.memory.generate) {
      try {
        // 7 + 8. Phase 1 (extraction) and phase 2 (consolidation) on the host copy of the memory layout.
        const consolidate = async (): Promise<void> => {
          const p = await step('memory-pipeline', emit, timings, () => runPipelineOn(layoutDir, config, client, onProgress, [...(publisher.agentMemoryMd ? [publisher.agentMemoryMd] : []), ...(adoption?.memoryEdits ?? [])]), (r) =>
            `${r.extracted.length} extracted, ${r.consolidated ? `${r.added.length} added, ${r.changed.length} changed` : 'nothing to consolidate'}`,
          );
          const mine = p.pending.find((x) => x.rolloutId === rolloutId);
          result.pending = Boolean(mine);
          const failure = mine ? `phase 1: ${mine.error}` : p.phase2Error ? `phase 2: ${p.phase2Error.message}` : undefined;
          if (failure) result.pipelineError = failure;
          else delete result.pipelineError;
        };
        await consolidate();
        // 9. Snapshot the memory; move the head by compare-and-swap, consolidating again on top of a moved head.
        const memorySnapshot = await step('snapshot-memory', emit, timings, () => publisher.snapshotLayout(publisher.parent), (m) => m.id);
        const head = await step('advance-head', emit, timings, () =>
          publisher.advance(memorySnapshot.id, async (current) => {
            await consolidate();
            return (await publisher.snapshotLayout(current)).id;
          }), (h) => `head of ${lineage} → ${h}`,
        );
        result.memorySnapshot = head;
        result.head = head;
        result.lessons = diffLessons(before, await readEntries(join(layoutDir, layout.memoriesDir, 'MEMORY.md')), await readEntries(join(layoutDir, layout.memoriesDir, 'archive.md')), { rolloutId, mergedIn: publisher.mergedIn });
      } catch (err) {
        // The rollout stays pending at the head (its transcript is there): the next session or
        // `mnemara memory consolidate` extracts it.
        log.error({ err, rolloutId }, 'memory pipeline failed; the rollout stays pending');
        result.pending = true;
        result.pipelineError = (err as Error).message;
        result.head = publisher.expected;
      }
    }
    result.headConflicts = publisher.conflicts;
    if (options.keepSandbox) result.keptSandbox = sandbox.id;
  } finally {
    // 10. Remove the sandbox (unless asked to keep it, or it holds work no snapshot could save).
    await step('cleanup', emit, timings, async () => {
      if (options.keepSandbox || keepForRescue) keepSandbox(sandbox); // not removed at process exit either
      else await sandbox.close();
    }).catch((err: unknown) => log.error({ err }, 'cleanup failed'));
  }
  result.timings = { ...timings, totalMs: Date.now() - began, parts };
  return result;
}
