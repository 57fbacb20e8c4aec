/**
 * The memory module's public API (docs/memory.md): the pipeline after a run, the read path before one,
 * `learn` for foreign transcripts, curation (show/search/forget), redaction, and the file formats.
 */
export { runMemoryPipeline, type MemoryPipelineOptions, type MemoryPipelineResult } from './pipeline.js';
export { learnTranscript, type LearnResult } from './learn.js';
export { buildMemoryBlock, taskKeywords, type BuildMemoryBlockOptions, type MemoryBlock } from './read.js';
export { consolidate, DETERMINISTIC_PHASE2_VERSION, type ConsolidateOptions, type ConsolidationResult } from './phase2/index.js';
export { describeMemory, forgetEntry, searchMemory, type MemoryOverview, type SearchHit } from './handbook.js';
export { redact, redactDeep, isSecretName, findSecretKinds, type SecretKind } from './redact.js';
export { memoryPaths, excludeFromGit, gitExcludeEntries, assertRolloutId, existingWorkspaceDir, mnemaraOwnedPaths, type MemoryPaths } from './layout.js';
export { parseMemoryMd, renderMemoryMd, type MemoryEntry, type HandbookInfo } from './memory-md.js';
export { parseSummary, renderSummary, type SummaryEntry } from './memory-summary-md.js';
export { parseRawMemories, renderRawMemories, parseRolloutSummary, renderRolloutSummary } from './artifacts.js';
export { countMemoryUse, memoryMdWrites, type MemoryUse } from './use.js';
export { entryId, normalizeText } from './normalize.js';
export { estimateTokens } from './tokens.js';
export * from './types.js';
