import { resolve } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import type { Command } from 'commander';
import { existingWorkspaceDir } from '../../memory/layout.js';
import { learnTranscript } from '../../memory/learn.js';
import { sessionModelClient } from '../../session/agent-step.js';
import { extractorOf } from '../../session/memory-step.js';
import { EXIT, emit, progressPrinter } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';

/** Registers `mnemara learn <transcript-file>`. */
export function registerLearnCommand(program: Command): void {
  addConfigOptions(
    program
      .command('learn <transcript-file>')
      .summary('import a transcript from elsewhere and learn from it (memory pipeline)')
      .description(
        'Learn from a run that happened elsewhere: import the transcript (Anthropic Messages JSON, Claude Code ' +
          "session JSONL, or mnemara's own JSONL), store it redacted as sessions/<rollout-id>.jsonl in the workspace, " +
          'and run the memory pipeline (extraction, then consolidation into memories/MEMORY.md). ' +
          'Uses the model when one is configured (ANTHROPIC_API_KEY), else the deterministic extractor. ' +
          'Learning the same file twice changes nothing.',
      )
      .option('-w, --workspace <dir>', 'workspace whose memory learns', '.')
      .option('--deterministic', 'use the deterministic extractor and consolidation (no model, no network)')
      .option('--memory-model <name>', 'model of the memory pipeline (memory.model; default agent.model)')
      .option('--context-tokens <n>', "the pipeline model's context window in tokens (memory.contextTokens, default 200000)")
      .option('--json', 'print the result as one JSON document'),
  ).action(async (file: string, opts: ConfigCliOptions & { workspace: string; json?: boolean; deterministic?: boolean; memoryModel?: string; contextTokens?: string }) => {
    const { config } = loadCliConfig(opts);
    const extractor = opts.deterministic ? 'deterministic' : extractorOf(config);
    const contextTokens = contextTokensOf(opts.contextTokens, config.memory.contextTokens);
    const result = await learnTranscript(resolve(file), await existingWorkspaceDir(opts.workspace), {
      layout: config.memory.layout,
      extractor,
      ...(extractor === 'model' ? { client: sessionModelClient(config), model: opts.memoryModel ?? config.memory.model ?? config.agent.model, contextTokens } : {}),
      config: config.memory,
      onProgress: progressPrinter(!opts.json),
    });
    emit(Boolean(opts.json), result, () =>
      [
        `${result.alreadyKnown ? 'already learned' : 'stored'} ${result.transcript} (${result.format}${result.skippedLines ? `, ${result.skippedLines} damaged line(s) skipped` : ''})`,
        ...result.pending.map((p) => `pending ${p.rolloutId}: ${p.error}`),
        result.phase2Error
          ? `consolidation failed (${result.phase2Error.code}): ${result.phase2Error.message}; the previous MEMORY.md is kept`
          : result.consolidated
            ? `MEMORY.md: +${result.added.length} ~${result.changed.length} -${result.removed.length} entries (see: mnemara memory show)${archivedLine(result)}`
            : 'nothing new to consolidate',
      ].join('\n'),
    );
    if (result.phase2Error || result.pending.some((p) => p.rolloutId === result.rolloutId)) process.exitCode = EXIT.failed;
  });
}

/** The summary line's note on entries the size cap moved to archive.md; a person's own are always named. */
function archivedLine(r: { archived?: string[]; archivedPersonal?: Array<{ id: string; text: string }> }): string {
  if (!r.archived?.length) return '';
  const mine = r.archivedPersonal ?? [];
  return `; ${r.archived.length} moved to memories/archive.md by the size cap${mine.length ? `, ${mine.length} of them written by you: ${mine.map((e) => `${e.id} “${e.text.slice(0, 60)}”`).join(', ')} (mnemara memory restore <id>)` : ''}`;
}

/**
 * `--context-tokens`: a whole number of tokens (at least 4,000), else the configured value.
 * @throws MnemaraError `USAGE` for anything else (exit 2).
 */
export function contextTokensOf(flag: string | undefined, configured: number): number {
  if (flag === undefined) return configured;
  const n = Number(flag);
  if (!Number.isInteger(n) || n < 4000) {
    throw new MnemaraError('USAGE', `--context-tokens must be a whole number of tokens, at least 4000; got ${JSON.stringify(flag)}`, { hint: 'For example --context-tokens 200000 (the model\'s context window).' });
  }
  return n;
}
