import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import type { MnemaraConfig } from '../../config/schema.js';
import { restoreEntry } from '../../memory/archive.js';
import { contextTokensOf } from './learn.js';
import { describeMemory, forgetEntry, searchMemory, type MemoryOverview } from '../../memory/handbook.js';
import { KIND_ORDER, SECTION_TITLES, type MemoryEntry } from '../../memory/memory-md.js';
import { existingWorkspaceDir } from '../../memory/layout.js';
import { assertNoLayoutLinks } from '../../memory/layout-links.js';
import { describeTreeRedaction } from '../../memory/redact-tree.js';
import { renderLessonsSection, writeLessonsSection, type ExportFormat } from '../../memory/export.js';
import { consolidateWithFallback } from './consolidate-path.js';
import { describeSource, lineageLines, memoryStore, onMemoryDir, resolveMemorySource, sourceJson, type MemorySource } from '../memory-source.js';
import { EXIT, emit, progressPrinter } from '../output.js';
import { namedValues, redactNamedValues } from '../memory-redact.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';
import { pushAll } from '../../config/arrays.js';

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
    if (of.length) pushAll(lines, ['', SECTION_TITLES[kind], ...of.map((e) => entryLine(e, summary.has(e.id)))]);
  }
  return lines.join('\n');
}

type Target = Opts & { lineage?: string };

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The memory the user means (see memory-source.ts), or `null` after listing the lineages when none was named. */
async function sourceOf(cmd: Command, opts: Target, config: MnemaraConfig): Promise<MemorySource | null> {
  const source = await resolveMemorySource(
    { workspace: opts.workspace, workspaceGiven: cmd.getOptionValueSource('workspace') === 'cli', ...(opts.lineage ? { lineage: opts.lineage } : {}) },
    config,
  );
  if (source) return source;
  const store = await memoryStore(config);
  const lines = await lineageLines(store);
  const heads = await store.listHeads();
  emit(Boolean(opts.json), { where: null, lineages: heads }, () =>
    lines.length
      ? [`no memory in ${resolve(opts.workspace)}; lineages in ${store.root}:`, ...lines, 'pick one with --lineage NAME, or -w DIR with the directory a run used'].join('\n')
      : `no memory in ${resolve(opts.workspace)}, and the store ${store.root} has no lineage yet (run \`mnemara run -w DIR --task …\` first)`,
  );
  return null;
}

/** Registers `mnemara memory` (show, search, forget, redact, restore, consolidate, export). */
export function registerMemoryCommand(program: Command): void {
  const mem = program
    .command('memory')
    .summary('show, search, forget, restore and consolidate what runs learned (MEMORY.md)')
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

  const show = sub('show', 'List the entries of MEMORY.md by section, with ids, sources and what is in the summary.')
    .option('-l, --lineage <name>', "show the memory of a lineage's head snapshot instead of a workspace");
  show.action(async (opts: Target) => {
    const { config } = loadCliConfig(opts);
    const source = await sourceOf(show, opts, config);
    if (!source) return;
    const where = describeSource(source);
    const { value: o } = await onMemoryDir(source, config, (dir) => describeMemory(dir, config.memory.layout));
    // A lineage's memory was read from a temporary copy that is gone now: no directory to point to.
    const memoriesDir = source.kind === 'workspace' ? o.memoriesDir : null;
    emit(Boolean(opts.json), { where, ...sourceJson(source), ...o, memoriesDir }, () => describe(o, where));
  });

  const search = sub('search <words...>', 'Find entries of MEMORY.md holding any of the words (best matches first).')
    .option('-l, --lineage <name>', "search the memory of a lineage's head snapshot instead of a workspace");
  search.action(async (words: string[], opts: Target) => {
    const { config } = loadCliConfig(opts);
    const source = await sourceOf(search, opts, config);
    if (!source) return;
    const where = describeSource(source);
    const { value: hits } = await onMemoryDir(source, config, (dir) => searchMemory(dir, words, config.memory.layout));
    emit(Boolean(opts.json), { where, ...sourceJson(source), words, hits }, () =>
      [`memory of ${where}:`, ...(hits.length ? hits.map((h) => `${entryLine(h.entry, false)}${h.archived ? `\n             (archived: mnemara memory restore ${h.entry.id})` : ''}`) : [`  no entry mentions ${words.join(' or ')}`])].join('\n'),
    );
    if (hits.length === 0) process.exitCode = EXIT.failed;
  });

  const forget = sub('forget <entry-id>', 'Remove an entry for good: it does not come back from old raw memories, even reworded. On a lineage, the change is saved as a new memory snapshot at its head.')
    .option('-l, --lineage <name>', "forget in the memory of a lineage's head (saved as a new memory snapshot)");
  forget.action(async (id: string, opts: Target) => {
    const { config } = loadCliConfig(opts);
    const source = await sourceOf(forget, opts, config);
    if (!source) return;
    const { value: removed, snapshot, redaction } = await onMemoryDir(source, config, (dir) => forgetEntry(dir, id, config.memory), {});
    const redactionLine = redaction ? describeTreeRedaction(redaction) : '';
    emit(Boolean(opts.json), { ...sourceJson(source), forgotten: removed, ...(snapshot ? { head: snapshot } : {}), ...(redaction ? { redaction } : {}) }, () =>
      [
        `forgot ${removed.id}: ${removed.text}`,
        ...(snapshot && source.kind === 'lineage' ? [`saved as ${snapshot}: lineage ${source.lineage} → head`] : []),
        ...(redactionLine ? [redactionLine] : []),
      ].join('\n'),
    );
  });

  const redactCmd = sub(
    'redact [value]',
    'Purge a secret that redaction missed, by its value: replaced by [REDACTED:secret] in every file of the memory ' +
      "(MEMORY.md, the summary, rollout summaries, raw memories, sessions/; on a lineage, saved as a new memory snapshot " +
      'at its head) and in the transcripts kept on this host. Give the value on stdin, one per line, so it stays out of ' +
      "your shell history: printf '%s\\n' 'VALUE' | mnemara memory redact --lineage NAME. Older snapshots keep it in their " +
      'layers: the output says how to squash and prune them. Rotate the credential too: it was stored before.',
  ).option('-l, --lineage <name>', "purge from the memory of a lineage's head (saved as a new memory snapshot)");
  redactCmd.action(async (value: string | undefined, opts: Target) => {
    const { config } = loadCliConfig(opts);
    const values = namedValues(value ?? (process.stdin.isTTY ? '' : await readStdin()));
    const source = await sourceOf(redactCmd, opts, config);
    if (!source) return;
    const r = await redactNamedValues(source, config, values);
    const n = (files: { occurrences: number }[]): number => files.reduce((sum, f) => sum + f.occurrences, 0);
    emit(Boolean(opts.json), { ...sourceJson(source), ...r }, () =>
      [
        r.layout.length
          ? `replaced ${n(r.layout)} occurrence(s) in ${r.layout.length} file(s) of the memory of ${describeSource(source)}: ${r.layout.map((f) => f.path).join(', ')}`
          : `the memory of ${describeSource(source)} does not hold it`,
        ...(r.head && source.kind === 'lineage' ? [`saved as ${r.head}: lineage ${source.lineage} → head`] : []),
        r.transcripts.length ? `replaced it in ${r.transcripts.length} transcript(s) on this host: ${r.transcripts.map((f) => `transcripts/${f.path}`).join(', ')}` : 'no transcript on this host holds it',
        ...(source.kind === 'lineage' && r.olderSnapshots
          ? [
              `${r.olderSnapshots} older snapshot(s) of ${source.lineage} may still hold it in their layers; to remove them: mnemara snapshot squash ${source.lineage} && mnemara snapshot prune --lineage ${source.lineage} --keep 1 (branches are kept: mnemara lineage delete NAME@…; blobs written in the last 10 minutes are spared, as a concurrent write may need them: prune again after that)`,
            ]
          : []),
        "the workspace's own files (code, .env) are not changed: check them with grep; and rotate the credential, it was stored before",
      ].join('\n'),
    );
  });

  const restoreCmd = sub('restore <entry-id>', 'Bring an entry back from memories/archive.md (where the size cap or a newer entry moved it) into MEMORY.md, as yours. On a lineage, saved as a new memory snapshot at its head.')
    .option('-l, --lineage <name>', "restore in the memory of a lineage's head (saved as a new memory snapshot)");
  restoreCmd.action(async (id: string, opts: Target) => {
    const { config } = loadCliConfig(opts);
    // Where the entry went: a lineage's head as `forget` acts on it (thirteenth trial F19: restore read only the
    // checkout's archive.md, failed, and left an empty memories/ there that made `apply` refuse).
    const source = await sourceOf(restoreCmd, opts, config);
    if (!source) return;
    const { value: restored, snapshot } = await onMemoryDir(source, config, (dir) => restoreEntry(dir, id, config.memory.layout), {});
    emit(Boolean(opts.json), { ...sourceJson(source), restored, ...(snapshot ? { head: snapshot } : {}) }, () =>
      [`restored ${restored.id}: ${restored.text}`, ...(snapshot && source.kind === 'lineage' ? [`saved as ${snapshot}: lineage ${source.lineage} → head`] : [])].join('\n'),
    );
  });

  sub('consolidate', 'Run the memory pipeline: extract pending transcripts in sessions/, then consolidate MEMORY.md.')
    .option('--force', 'consolidate even when no raw memory changed')
    .option('--deterministic', 'use the deterministic extractor and consolidation (no model, no network)')
    .option('--memory-model <name>', 'model of the memory pipeline (memory.model; default agent.model)')
    .option('--context-tokens <n>', "the pipeline model's context window in tokens (memory.contextTokens, default 200000)")
    .action(async (opts: Opts & { force?: boolean; deterministic?: boolean; memoryModel?: string; contextTokens?: string }) => {
      const { config } = loadCliConfig(opts);
      const contextTokens = contextTokensOf(opts.contextTokens, config.memory.contextTokens);
      const ran = await consolidateWithFallback(await existingWorkspaceDir(opts.workspace), config, {
        ...(opts.deterministic ? { deterministic: true } : {}),
        ...(opts.memoryModel ? { model: opts.memoryModel } : {}),
        contextTokens,
        force: Boolean(opts.force),
        onProgress: progressPrinter(!opts.json),
      });
      const { result } = ran;
      const pathLine = ran.path === 'model' ? `path: model (${ran.model})` : `path: deterministic${ran.fallback ? ' (fallback)' : ''}: ${ran.reason}`;
      emit(Boolean(opts.json), { ...result, path: ran.path, ...(ran.model ? { model: ran.model } : {}), ...(ran.reason ? { pathReason: ran.reason } : {}), fallback: ran.fallback }, () =>
        [
          `extracted ${result.extracted.length} rollout(s)${result.extracted.length ? `: ${result.extracted.join(', ')}` : ''}`,
          ...result.pending.map((p) => `pending ${p.rolloutId}: ${p.error}`),
          result.phase2Error
            ? `consolidation failed (${result.phase2Error.code}): ${result.phase2Error.message}; the previous MEMORY.md is kept`
            : result.consolidated
              ? `consolidated: +${result.added.length} ~${result.changed.length} -${result.removed.length} entries${result.forgottenRollouts.length ? `, forgot ${result.forgottenRollouts.length} old rollout(s)` : ''}${result.superseded?.length ? `; ${result.superseded.length} superseded, moved to memories/archive.md: ${result.superseded.map((e) => e.id).join(', ')}` : ''}${result.archived?.length ? `; ${result.archived.length} moved to memories/archive.md by the size cap: ${result.archived.map((id) => (result.archivedPersonal?.some((e) => e.id === id) ? `${id} (yours)` : id)).join(', ')} (mnemara memory restore <id>)` : ''}`
              : 'nothing new to consolidate',
          pathLine,
          `model calls: ${result.modelCalls}`,
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
      const dir = await existingWorkspaceDir(opts.workspace);
      await assertNoLayoutLinks(dir, config.memory.layout);
      const { section, ids } = await renderLessonsSection(dir, opts.format as ExportFormat, config.memory.layout);
      if (!opts.write) {
        emit(Boolean(opts.json), { format: opts.format, ids, section }, () => section);
        return;
      }
      const changed = await writeLessonsSection(opts.write, section);
      emit(Boolean(opts.json), { format: opts.format, ids, file: opts.write, changed }, () => `${changed ? 'wrote' : 'unchanged:'} ${ids.length} lesson(s) to ${opts.write}`);
    });
}
