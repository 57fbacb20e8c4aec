import type { MnemaraConfig } from '../config/schema.js';
import type { ProgressEvent } from '../config/progress.js';
import type { Outcome, Usage } from '../transcript/schema.js';

/** What one session is asked to do (DESIGN.md, "Data flow of one session"). */
export interface SessionOptions {
  /** Host directory of the workspace (its copy is the start when the lineage has no head). */
  workspace: string;
  /** The task, as the user wrote it. */
  task: string;
  /** The effective configuration (`loadConfig`). */
  config: MnemaraConfig;
  /** Lineage whose head the session starts from and advances; default: the workspace directory's name. */
  lineage?: string;
  /** Start from this snapshot instead of the lineage head. */
  from?: string;
  /** Start from a fresh copy of the workspace with this lineage's memory layout laid over it (the CI case). */
  memoryFrom?: string;
  /** Leave the container running after the session (for inspection); it is still labelled as mnemara's. */
  keepSandbox?: boolean;
  /** Aborting ends the agent run as `interrupted` after the current tool call; the session still snapshots. */
  signal?: AbortSignal;
  /** Aborting (with `signal`) also kills the bash command running now (its process tree) instead of waiting for it. */
  stopSignal?: AbortSignal;
  /**
   * Aborting also skips the memory pipeline (the rollout stays pending, `memorySkipped`): for SIGTERM, whose sender
   * (a CI cancel, `docker stop`, Kubernetes) sends SIGKILL after a short grace; phase 1 and 2 may wait on the model.
   */
  hurrySignal?: AbortSignal;
  /** Extra instructions for the system prompt (before the memory block). */
  instructions?: string;
  /** Several runs can form one conversation; default: a new one. */
  conversationId?: string;
}

/** The steps of a session, in order (DESIGN.md's ten steps; `publish` moves the head to the workspace snapshot). */
export const SESSION_STEPS = [
  'resolve',
  'sandbox',
  'restore',
  'memory-read',
  'agent',
  'snapshot-workspace',
  'publish',
  'memory-pipeline',
  'snapshot-memory',
  'advance-head',
  'cleanup',
] as const;
export type SessionStep = (typeof SESSION_STEPS)[number];

/** One tool call of the agent, as the session reports it live (`phase: 'end'` carries the result). */
export interface ToolCallEvent {
  turn: number;
  id: string;
  name: string;
  /** A one-line description of the call (the command, or `view path`). */
  summary: string;
  phase: 'start' | 'end';
  exitCode?: number | null;
  isError?: boolean;
  durationMs?: number;
}

/** Everything a session reports while it runs: step progress, and the agent's turns and tool calls. */
export type SessionEvent =
  /** After the start is resolved, before the sandbox: the rollout's id and where its transcript will be. */
  /** `lineageSource`: how the lineage was chosen (named with --lineage, or the default from the git remote or directory); `branch`: the git branch a default lineage was named for. */
  | { type: 'started'; rolloutId: string; lineage: string; lineageSource: 'named' | 'git remote' | 'directory'; branch?: string; transcriptPath: string }
  | { type: 'progress'; progress: ProgressEvent }
  | { type: 'turn'; turn: number; usage?: Partial<Usage>; text?: string }
  /** A model call of `turn` was sent (`waiting`), or its answer began to stream (`answering`). */
  | { type: 'model'; turn: number; phase: 'waiting' | 'answering' }
  | { type: 'tool'; tool: ToolCallEvent }
  /** Something the user should know about how the run treated their files (`host-memory.ts`); also in the result. */
  | { type: 'notice'; notice: SessionNotice };

/**
 * A warning about the run's input that does not stop it: `host-memory-ignored` (the checkout's MEMORY.md differs
 * from the lineage head's, which the run uses), `host-memory-replaced` (`--memory-from` replaced the checkout's
 * memory layout), `shared-network` (the sandbox shares another namespace's network: `--network host` or
 * `container:<id>`), `host-credentials` (a fresh copy takes the user's credential files into the store).
 * `file`: the host path it is about ('' for the network); `hint`: what to do.
 */
export interface SessionNotice {
  kind: 'host-memory-ignored' | 'host-memory-replaced' | 'shared-network' | 'host-credentials' | 'large-snapshot';
  file: string;
  message: string;
  hint: string;
}

export interface SessionHooks {
  /** Receives every event; must not throw (errors are logged and ignored). */
  onEvent?: (event: SessionEvent) => void;
}

/** How the session started (step 1). */
export interface SessionStart {
  kind: 'snapshot' | 'head' | 'memory-from' | 'fresh';
  /** Snapshot whose tree (or, for `memory-from`, whose memory layout) was restored; `null` for `fresh`. */
  snapshotId: string | null;
  /** The lineage head when the session started (what the compare-and-swap expects). */
  headAtStart: string | null;
}

/** What changed in MEMORY.md (entry ids, see `src/memory`). */
export interface LessonChanges {
  added: string[];
  changed: string[];
  removed: string[];
  /** Number of entries after the session. */
  total: number;
  /** The text of each added, changed or removed entry, by id (redacted). */
  text: Record<string, string>;
  /**
   * The removed entries that `memories/archive.md` holds after the session (`memory restore ID` brings them back);
   * the others were dropped, not archived (e.g. a repository's entry that held a secret or an injected instruction).
   */
  archived?: string[];
}

/** What a session did. Times in ms, tokens in tokens. */
export interface SessionResult {
  rolloutId: string;
  lineage: string;
  start: SessionStart;
  outcome: Outcome;
  /** The agent's error, when `outcome` is `error`. */
  agentError?: string;
  turns: number;
  usage: Usage;
  /** Snapshot of the workspace after the run, whatever the outcome. `null` when snapshotting failed, or `cancelled`. */
  workspaceSnapshot: string | null;
  /**
   * Ended before the model's first reply (`outcome` says why: `interrupted`, or `error` for a refused key or a 500):
   * no tool ran, nothing was done, so nothing was saved (no snapshot, no rollout, no transcript; the head as it was).
   */
  nothingSaved?: true;
  /** Snapshot of the consolidated memory; `null` when the pipeline did not run or failed. */
  memorySnapshot: string | null;
  /** The lineage head when the session ended (`null` when it could not be moved). */
  head: string | null;
  /** The rollout is in the lineage's `sessions/` but not yet extracted (pipeline off or failed). */
  pending: boolean;
  /** Why the memory pipeline failed (the rollout stays pending; the next session or `memory consolidate` retries). */
  pipelineError?: string;
  /**
   * The memory pipeline was not run because the session was stopped (`hurrySignal`: SIGTERM gives a short grace
   * before SIGKILL, and phase 1 and 2 may wait on the model for minutes). The rollout is pending at the head.
   */
  memorySkipped?: 'stopped';
  /** How often the head had moved under the session and it consolidated again on top of the new head. */
  headConflicts: number;
  lessons: LessonChanges | null;
  /**
   * The session's code did not land on the head (another session moved it first): the workspace snapshot is kept
   * on this branch of the lineage (`LINEAGE@<rollout-id>`), listed by `mnemara lineage list`, never pruned.
   */
  branch?: { name: string; snapshot: string; reason: 'head-moved' };
  /**
   * The run started off the head (`--from`) and its code replaced the head's: the replaced head, kept on this
   * branch (`LINEAGE@replaced-<rollout-id>`) so that nothing is lost or pruned.
   */
  replacedHead?: { name: string; snapshot: string };
  /** Orphaned rollouts of the lineage (crashed or failed sessions) this session brought into the memory pipeline. */
  adopted?: string[];
  /** Where their code is: each killed or failed session's workspace snapshot, named as a branch of the lineage. */
  adoptedBranches?: Array<{ name: string; snapshot: string }>;
  /** Warnings about the host checkout's files (`SessionNotice`), as they were emitted; absent when none. */
  notices?: SessionNotice[];
  /** Host copy of the transcript (redacted as written); absent with `nothingSaved` (none was written). */
  transcriptPath?: string;
  /** Sandbox left running (`--keep-sandbox`). */
  keptSandbox?: string;
  /**
   * Wall time per step, ms, and `parts`: where the steps spent it (`restore.fill`: snapshot export and transfer
   * in with extraction in the sandbox; `restore.listing`: the change baseline; `restore.trusted-layout`: the
   * pre-run copy of mnemara's memory files; before the snapshot is read, `snapshot.stop-processes`,
   * `snapshot.redact-notes` (the one sandbox exec all the checks share, `workspace-scan.ts`, and the memory layout
   * redacted in the sandbox), `snapshot.redact-git-messages`, `snapshot.secret-keys` (beside the next two: parts may
   * add up to more than their step), `snapshot.credential-files`, `snapshot.token-files` (the token scan of files
   * the run wrote; these four: their own work on the shared scan's output); `snapshot.listing`, `snapshot.transfer-out` (changes tar),
   * `snapshot.pack` (extraction of the changes, hashing, compression, index), `snapshot.full-stream` (all of
   * that for the whole workspace, when it was read whole); `publish.layout-copy`, `publish.trust`,
   * `publish.head`).
   */
  timings: Partial<Record<SessionStep, number>> & { totalMs: number; parts?: Record<string, number> };
  /** How the workspace snapshot was taken: only the changes (paths, deletions, bytes), or the whole stream and why. */
  workspaceSnapshotMode?: { kind: 'changes'; paths: number; deleted: number; bytes: number } | { kind: 'full'; reason: string };
  /**
   * Credential files the run wrote into the workspace (by content): `left-out` ones are not in the workspace
   * snapshot (its manifest lists them in `skipped`), `kept` ones are, with why (issue 10, item 8).
   */
  credentialFiles?: Array<{ path: string; kind: string; action: 'left-out' | 'kept'; why?: string; savedAt?: string }>;
  /**
   * Files the run wrote that hold a token of a provider-prefixed kind (`secret-files.ts`): `left-out` ones are not
   * in the workspace snapshot and are kept for the user at `savedAt` (`<home>/left-out/<rollout-id>/<path>`);
   * `kept` ones (the user's own files) are, with why. `inName`: the token is in the file's name, and `path` (and
   * the copy's `savedAt`) is that name redacted.
   */
  secretFiles?: Array<{ path: string; kinds: string[]; action: 'left-out' | 'kept'; why?: string; savedAt?: string; inName?: boolean }>;
  /**
   * Config files the run created or changed that hold a value under a key whose name says secret, with no known
   * token shape (`secret-key-files.ts`): reported by file, key and line (never the value), kept in the snapshot.
   */
  secretKeyFiles?: Array<{ path: string; keys: Array<{ key: string; line: number }> }>;
  /** Processes the agent's commands left running, killed before the workspace snapshot. */
  leftoverProcesses?: number;
}
