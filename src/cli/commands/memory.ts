import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import { defaultStoreDir } from '../../config/paths.js';
import type { MnemaraConfig } from '../../config/schema.js';
import { describeMemory, forgetEntry, searchMemory, type MemoryOverview } from '../../memory/handbook.js';
import { KIND_ORDER, SECTION_TITLES, type MemoryEntry } from '../../memory/memory-md.js';
import { existingWorkspaceDir } from '../../memory/layout.js';
import { runMemoryPipeline } from '../../memory/pipeline.js';
import { renderLessonsSection, writeLessonsSection, type ExportFormat } from '../../memory/export.js';
import { sessionModelClient } from '../../session/agent-step.js';
import { extractorOf } from '../../session/memory-step.js';
import { openStore } from '../../snapshot/index.js';
import { EXIT, emit, progressPrinter } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';

type Opts = ConfigCliOptions & { json?: boolean; workspace: string; lineage?: string };

function entryLine(e: MemoryEntry, inSummary: boolean): string {
  const from = e.sources.length ? `from ${e.sources.join(', ')}` : 'written by hand';
  return `  ${e.id}  ${e.text}\n             (${from}; importance ${e.importance}${e.edited ? '; edited' : ''}${inSummary ? '; in summary' : ''})`;
}

function describe(o: MemoryOverview, where: string): string {
  const c = o.consolidation;
  const lines = [
    `memory of ${where}: ${o.entries.length} entries, ${o.summaryIds.length} in memory_summary.md`,
    c ? `consolidated ${c.at} by ${c.producer} (${c.promptVersion})` : 'not consolidated yet',
    `rollouts: ${o.rollouts.extracted} extracted, ${o.rollouts.failed.length} pending (failed), ${o.rollouts.forgotten} forgotten; ${o.forgottenEntries} entries forgotten`,
    ...o.rollouts.failed.map((f) => `  pending ${f.rolloutId} (attempt ${f.attempts}): ${f.error}`),
  ];
  const summary = new Set(o.summaryIds);
  for (const kind of KIND_ORDER) {
    const of = o.entries.filter((e) => e.kind === kind);
    if (of.length) lines.push('', SECTION_TITLES[kind], ...of.map((e) => entryLine(e, summary.has(e.id))));
  }
  return lines.join('\n');
}

/** Runs `fn` on a directory holding the memory: the workspace, or the lineage head's memory restored to a temp dir. */
async function onMemoryDir<T>(opts: Opts, config: MnemaraConfig, fn: (dir: string, where: string) => Promise<T>): Promise<T> {
  if (!opts.lineage) {
    const ws = await existingWorkspaceDir(opts.workspace);
    return fn(ws, ws);
  }
  const store = await openStore(config.snapshot.store ?? defaultStoreDir(), config.snapshot);
  const head = await store.getHead(opts.lineage);
  if (!head) throw new MnemaraError('NOT_FOUND', `lineage ${opts.lineage} has no snapshot`, { hint: 'mnemara snapshot list shows the lineages and their heads.' });
  const tmp = await mkdtemp(join(tmpdir(), 'mnemara-memory-'));
  try {
    const dir = join(tmp, 'ws');
    await store.restoreToDirectory(head, dir, { paths: [config.memory.layout.memoriesDir] });
    return await fn(dir, `lineage ${opts.lineage} (snapshot ${head})`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Registers `mnemara memory` (show, search, forget, consolidate, export). */
export function registerMemoryCommand(program: Command): void {
  const mem = program
    .command('memory')
    .summary('show, search, forget and consolidate what runs learned (MEMORY.md)')
    .description(
      'Look at and curate what runs learned: memories/MEMORY.md (the handbook: entries with stable ids, citing ' +
        'the rollouts they came from) and memories/memory_summary.md (what every run starts with). ' +
        'MEMORY.md may also be edited by hand: edits are kept, deleted entries stay deleted. See docs/memory.md.',
    );
  const sub = (name: string, description: string): Command =>
    addConfigOptions(
      mem
        .command(name)
        .description(description)
        .option('-w, --workspace <dir>', 'workspace holding the memory layout', '.')
        .option('--json', 'print the result as one JSON document'),
    );

  sub('show', 'List the entries of MEMORY.md by section, with ids, sources and what is in the summary.')
    .option('-l, --lineage <name>', "show the memory of a lineage's head snapshot instead of a workspace")
    .action(async (opts: Opts) => {
      const { config } = loadCliConfig(opts);
      const layout = config.memory.layout;
      await onMemoryDir(opts, config, async (dir, where) => {
        const o = await describeMemory(dir, layout);
        emit(Boolean(opts.json), { where, ...o }, () => describe(o, where));
      });
    });

  sub('search <words...>', 'Find entries of MEMORY.md holding any of the words (best matches first).')
    .option('-l, --lineage <name>', "search the memory of a lineage's head snapshot instead of a workspace")
    .action(async (words: string[], opts: Opts) => {
      const { config } = loadCliConfig(opts);
      await onMemoryDir(opts, config, async (dir) => {
        const hits = await searchMemory(dir, words, config.memory.layout);
        emit(Boolean(opts.json), { words, hits }, () => (hits.length ? hits.map((h) => entryLine(h.entry, false)).join('\n') : `no entry mentions ${words.join(' or ')}`));
        if (hits.length === 0) process.exitCode = EXIT.failed;
      });
    });

  sub('forget <entry-id>', 'Remove an entry for good: it does not come back from old raw memories, even reworded.').action(async (id: string, opts: Opts) => {
    const { config } = loadCliConfig(opts);
    const removed = await forgetEntry(await existingWorkspaceDir(opts.workspace), id, config.memory);
    emit(Boolean(opts.json), { forgotten: removed }, () => `forgot ${removed.id}: ${removed.text}`);
  });

  sub('consolidate', 'Run the memory pipeline: extract pending transcripts in sessions/, then consolidate MEMORY.md.')
    .option('--force', 'consolidate even when no raw memory changed')
    .option('--deterministic', 'use the deterministic extractor and consolidation (no model, no network)')
    .action(async (opts: Opts & { force?: boolean; deterministic?: boolean }) => {
      const { config } = loadCliConfig(opts);
      const extractor = opts.deterministic ? 'deterministic' : extractorOf(config);
      const result = await runMemoryPipeline({
        workspaceDir: await existingWorkspaceDir(opts.workspace),
        layout: config.memory.layout,
        extractor,
        ...(extractor === 'model' ? { client: sessionModelClient(config), model: config.agent.model } : {}),
        config: config.memory,
        forceConsolidation: Boolean(opts.force),
        onProgress: progressPrinter(!opts.json),
      });
      emit(Boolean(opts.json), result, () =>
        [
          `extracted ${result.extracted.length} rollout(s)${result.extracted.length ? `: ${result.extracted.join(', ')}` : ''}`,
          ...result.pending.map((p) => `pending ${p.rolloutId}: ${p.error}`),
          result.phase2Error
            ? `consolidation failed (${result.phase2Error.code}): ${result.phase2Error.message}; the previous MEMORY.md is kept`
            : result.consolidated
              ? `consolidated: +${result.added.length} ~${result.changed.length} -${result.removed.length} entries${result.forgottenRollouts.length ? `, forgot ${result.forgottenRollouts.length} old rollout(s)` : ''}`
              : 'nothing new to consolidate',
          `model calls: ${result.modelCalls} (${extractor})`,
        ].join('\n'),
      );
      if (result.phase2Error || result.pending.length) process.exitCode = EXIT.failed;
    });

  sub('export', 'Write the lessons as a regenerable section of CLAUDE.md or AGENTS.md (printed without --write).')
    .requiredOption('--format <format>', 'claude-md or agents-md')
    .option('--write <file>', 'replace (or add) the lessons section in this file; the rest of the file is kept')
    .action(async (opts: Opts & { format: string; write?: string }) => {
      if (opts.format !== 'claude-md' && opts.format !== 'agents-md') {
        throw new MnemaraError('USAGE', `unknown export format "${opts.format}"`, { hint: 'Use --format claude-md or --format agents-md.' });
      }
      const { config } = loadCliConfig(opts);
      const { section, ids } = await renderLessonsSection(await existingWorkspaceDir(opts.workspace), opts.format as ExportFormat, config.memory.layout);
      if (!opts.write) {
        emit(Boolean(opts.json), { format: opts.format, ids, section }, () => section);
        return;
      }
      const changed = await writeLessonsSection(opts.write, section);
      emit(Boolean(opts.json), { format: opts.format, ids, file: opts.write, changed }, () => `${changed ? 'wrote' : 'unchanged:'} ${ids.length} lesson(s) to ${opts.write}`);
    });
}
