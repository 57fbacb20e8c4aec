/**
 * mnemara's public API. One session end to end: `runSession`. The parts, for callers who compose their own:
 * configuration (`loadConfig`), sandboxes (`createSandbox`), the snapshot store (`openStore`), the agent run
 * (`runAgent`, `createModelClient`), and the memory pipeline (`runMemoryPipeline`, `buildMemoryBlock`, `redact`).
 * Formats (manifest, transcript records, raw memories) are zod schemas, exported with their types.
 */

// Session: the ten steps of DESIGN.md.
export {
  runSession,
  defaultLineage,
  directoryLineage,
  workspaceLineage,
  SESSION_INSTRUCTIONS,
  SESSION_STEPS,
  type SessionOptions,
  type SessionHooks,
  type SessionEvent,
  type SessionResult,
  type SessionStart,
  type SessionStep,
  type ToolCallEvent,
  type LessonChanges,
} from './session.js';

// Configuration.
export { loadConfig, describeConfig, maskSecret, WORKSPACE_CONFIG_FILE, type LoadedConfig, type LoadConfigOptions, type ConfigSource, type FlagValue } from './config/load.js';
export { MnemaraConfigSchema, AnthropicConfigSchema, listOptions, envNameOf, type MnemaraConfig, type AnthropicConfig, type OptionInfo } from './config/schema.js';
export { SandboxConfigSchema, type SandboxConfig } from './config/sandbox.js';
export { SnapshotConfigSchema, type SnapshotConfig } from './config/snapshot.js';
export { AgentConfigSchema, type AgentConfig } from './config/agent.js';
export { MemoryConfigSchema, MemoryLayoutSchema, type MemoryConfig, type MemoryLayout } from './config/memory.js';
export { mnemaraHome, defaultStoreDir } from './config/paths.js';
export { MnemaraError } from './config/errors.js';
export type { ProgressEvent, OnProgress } from './config/progress.js';
export { VERSION } from './config/version.js';

// Sandbox.
export {
  createSandbox,
  DockerSandbox,
  LocalSandbox,
  SandboxError,
  pruneSandboxes,
  closeAllSandboxes,
  sandboxImageTag,
  type CreateSandboxOptions,
  type Sandbox,
  type ExecOptions,
  type ExecResult,
} from './sandbox/index.js';

// Snapshots.
export {
  openStore,
  DirectoryStore,
  HeadConflictError,
  SnapshotNotFoundError,
  SnapshotCorruptError,
  UnsafeArchiveError,
  SourceChangedError,
  DEFAULT_RESTORE_LIMITS,
  isValidLineage,
  ManifestSchema,
  LayerSchema,
  MANIFEST_FORMAT_VERSION,
  type Manifest,
  type Layer,
  type SnapshotStore,
  type SnapshotKind,
  type SnapshotSource,
  type CreateSnapshotOptions,
  type RestoreLimits,
} from './snapshot/index.js';
export { diffSnapshots, type SnapshotDiff } from './snapshot/diff.js';

// Agent run and transcripts.
export {
  runAgent,
  createModelClient,
  DEFAULT_MODEL,
  newRolloutId,
  buildSystemPrompt,
  TranscriptWriter,
  type RunAgentOptions,
  type RunResult,
  type ModelClient,
  type ModelClientOptions,
  type AgentEvent,
  type OnAgentEvent,
} from './agent/index.js';
export { readTranscript, loadTranscript } from './transcript/reader.js';
export {
  TranscriptRecordSchema,
  SessionMetaSchema,
  SessionEndSchema,
  OutcomeSchema,
  UsageSchema,
  TRANSCRIPT_FORMAT_VERSION,
  type TranscriptRecord,
  type Outcome,
  type Usage,
} from './transcript/schema.js';

// Memory.
export { runMemoryPipeline, type MemoryPipelineOptions, type MemoryPipelineResult } from './memory/pipeline.js';
export { buildMemoryBlock, type MemoryBlock, type BuildMemoryBlockOptions } from './memory/read.js';
export { redact, findSecretKinds } from './memory/redact.js';
export { memoryPaths, type MemoryPaths } from './memory/layout.js';
export { parseMemoryMd, type MemoryEntry } from './memory/memory-md.js';
export { RawMemorySchema, MemoryKindSchema, type RawMemory, type MemoryKind, type RolloutSummary } from './memory/types.js';
