/**
 * One session, as DESIGN.md's ten steps: resolve the start, start the sandbox, restore, read memory, run the
 * agent, snapshot the workspace, extract (phase 1), consolidate (phase 2), snapshot the memory and move the
 * lineage head by compare-and-swap, remove the sandbox. The order protects work: the workspace snapshot is taken
 * and the head moved to it before the pipeline runs, so a pipeline failure or a crash leaves the rollout pending
 * on the lineage (its transcript in `sessions/`, no raw memories yet) for the next session to extract.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newRolloutId } from './agent/ids.js';
import type { ModelClient } from './agent/client.js';
import { MnemaraError } from './config/errors.js';
import { logger } from './config/logger.js';
import type { OnProgress } from './config/progress.js';
import { createSandbox, keepSandbox } from './sandbox/index.js';
import type { Sandbox } from './sandbox/types.js';
import { openStore, type SnapshotStore } from './snapshot/index.js';
import { runAgentStep, sessionModelClient } from './session/agent-step.js';
import { eventSink, progressOf, step } from './session/context.js';
import { diffLessons, readEntries } from './session/lessons.js';
import { readMemoryBlock, runPipelineOn } from './session/memory-step.js';
import { HeadPublisher } from './session/publish.js';
import { assertWorkspace, resolveStart, restoreWorkspace, workspaceLineage } from './session/start.js';
import { snapshotSandbox } from './session/snapshot-sandbox.js';
import type { SessionEvent, SessionHooks, SessionOptions, SessionResult, SessionStep } from './session/types.js';

export * from './session/types.js';
export { defaultLineage, lineageFromRemote, workspaceLineage } from './session/start.js';
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
  const chosen = options.lineage !== undefined ? { lineage: options.lineage, source: 'named' as const } : await workspaceLineage(workspace);
  const lineage = chosen.lineage;
  const client = sessionModelClient(config);
  const store = await openStore(config.snapshot.store as string, config.snapshot);
  const rolloutId = newRolloutId();
  const transcriptPath = join(config.home, 'transcripts', `${rolloutId}.jsonl`);
  await mkdir(join(config.home, 'tmp'), { recursive: true });
  const workDir = await mkdtemp(join(config.home, 'tmp', `session-${rolloutId}-`));
  try {
    return await stepsOf({ options, emit, onProgress, timings, began, workspace, lineage, lineageSource: chosen.source, client, store, rolloutId, transcriptPath, workDir });
  } finally {
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
  client: ModelClient;
  store: SnapshotStore;
  rolloutId: string;
  transcriptPath: string;
  workDir: string;
}

/** Steps 1–10 (see the module comment); `runSession` sets up their context and removes the scratch space. */
async function stepsOf(ctx: SessionContext): Promise<SessionResult> {
  const { options, emit, onProgress, timings, began, workspace, lineage, lineageSource, client, store, rolloutId, transcriptPath, workDir } = ctx;
  const { config } = options;
  const layout = config.memory.layout;

  // 1. Resolve the start: --from, else --memory-from, else the lineage head, else a fresh copy.
  const start = await step('resolve', emit, timings, () => resolveStart(store, { lineage, ...pick(options) }), (s) =>
    s.snapshotId ? `${s.kind} ${s.snapshotId} (lineage ${lineage})` : `fresh copy of ${workspace} (lineage ${lineage})`,
  );
  emit({ type: 'started', rolloutId, lineage, lineageSource, transcriptPath });

  // 2. Start the hardened sandbox.
  const sandbox: Sandbox = await step('sandbox', emit, timings, () =>
    createSandbox({ ...config.sandbox, sessionId: rolloutId, onProgress }), (s) => `${s.kind} ${s.id.slice(0, 12)}`,
  );
  let result: SessionResult;
  let keepForRescue = false;
  try {
    // 3. Restore the start into /workspace.
    await step('restore', emit, timings, () =>
      restoreWorkspace(sandbox, store, start, { workspace, ignore: config.snapshot.ignore, layout, onProgress }),
    );

    // 4. Read memory: memory_summary.md within its budget, fenced as data, for the system prompt.
    const memory = config.memory.read
      ? await step('memory-read', emit, timings, () => readMemoryBlock(sandbox, config, options.task, workDir), (m) => m.note)
      : { block: undefined, note: 'memory read is off' };

    // 5. Run the agent; its failures are outcomes. The transcript is appended on the host as the run goes.
    const run = await step('agent', emit, timings, () =>
      runAgentStep({ sandbox, client, config, task: options.task, memoryBlock: memory.block, rolloutId, transcriptPath, emit, options }),
      (r) => `${r.outcome} after ${r.turns} turns`,
    );

    // 6. Snapshot the workspace, whatever the outcome, and move the head to it: from here on the rollout is safe.
    const parent = start.snapshotId ?? start.headAtStart;
    const inherited = parent ? (await store.get(parent)).rolloutIds : [];
    const workspaceSnapshot = await step('snapshot-workspace', emit, timings, async () =>
      snapshotSandbox(sandbox, store, { lineage, kind: 'workspace', parent, rolloutIds: [...new Set([...inherited, rolloutId])], onProgress }),
      (m) => m.id,
    ).catch((err: unknown) => {
      keepForRescue = sandbox.kind === 'docker'; // the work exists only in the container now
      throw snapshotFailed(err, sandbox, transcriptPath);
    });
    const layoutDir = join(workDir, 'memory');
    const publisher = new HeadPublisher(store, lineage, layout, workDir, rolloutId, layoutDir, {
      headAtStart: start.headAtStart,
      layoutFrom: start.snapshotId,
    }, onProgress, {
      source: start.snapshotId ? { snapshotId: start.snapshotId } : { hostDir: workspace },
      transcriptPath,
    });
    const before = await step('publish', emit, timings, () => publisher.publishWorkspace(sandbox, workspaceSnapshot.id), () =>
      `head of ${lineage} → ${publisher.expected}`,
    );

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
      transcriptPath,
      timings: { totalMs: 0 },
    };
    if (config.memory.generate) {
      try {
        // 7 + 8. Phase 1 (extraction) and phase 2 (consolidation) on the host copy of the memory layout.
        const consolidate = async (): Promise<void> => {
          const p = await step('memory-pipeline', emit, timings, () => runPipelineOn(layoutDir, config, client, onProgress), (r) =>
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
        result.lessons = diffLessons(before, await readEntries(join(layoutDir, layout.memoriesDir, 'MEMORY.md')));
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
  result.timings = { ...timings, totalMs: Date.now() - began };
  return result;
}

/** A workspace snapshot that failed: the container is kept with the work; say how to get it out. */
function snapshotFailed(err: unknown, sandbox: Sandbox, transcriptPath: string): MnemaraError {
  const id = sandbox.id.slice(0, 12);
  return new MnemaraError('SNAPSHOT_FAILED', `could not snapshot the workspace: ${(err as Error).message}`, {
    hint:
      sandbox.kind === 'docker'
        ? `The sandbox ${id} is kept with the work in /workspace: \`docker cp ${id}:/workspace DIR\`, then \`mnemara sandbox prune\`. The transcript is at ${transcriptPath}.`
        : `The transcript is at ${transcriptPath}.`,
    cause: err,
  });
}

function pick(options: SessionOptions): { from?: string; memoryFrom?: string } {
  return {
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(options.memoryFrom !== undefined ? { memoryFrom: options.memoryFrom } : {}),
  };
}
