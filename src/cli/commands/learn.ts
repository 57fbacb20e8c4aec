import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import type { Command } from 'commander';
import { existingWorkspaceDir } from '../../memory/layout.js';
import { learnPaths, skipKind, type LearnReport } from '../../memory/learn.js';
import { sessionModelClient } from '../../session/agent-step.js';
import { extractorOf } from '../../session/memory-step.js';
import { supportedFormats } from '../../transcript/importers/index.js';
import { describeSource, holdsMemory, onMemoryDir, resolveMemorySource, type MemorySource } from '../memory-source.js';
import { EXIT, emit, progressPrinter, shellWord } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';
import { maxOf, pushAll } from '../../config/arrays.js';

/** Whether a store is there to look in (a URL: asked; a directory: only when it exists, so that none is made). */
const storeExists = (store: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(store) || existsSync(store);

/** Registers `mnemara learn PATH…`. */
export function registerLearnCommand(program: Command): void {
  addConfigOptions(
    program
      .command('learn <paths...>')
      .summary("learn from other agents' transcripts (files or directories) into memory")
      .description(
        'Learn from runs that happened elsewhere: every transcript under PATH (files, and directories walked ' +
          'recursively, e.g. ~/.claude/projects/<project>/, ~/.codex/sessions/ or ~/.gemini/tmp/) is recognised by its content, ' +
          "imported, stored redacted as sessions/<rollout-id>.jsonl in the workspace, and the memory pipeline runs " +
          '(extraction, then consolidation into memories/MEMORY.md). Learning the same file again changes nothing; ' +
          'a file that grew adds what is new. Uses the model when one is configured, else the deterministic extractor. ' +
          `Formats: ${supportedFormats()}.`,
      )
      .option('-w, --workspace <dir>', 'workspace whose memory learns', '.')
      .option('--deterministic', 'use the deterministic extractor and consolidation (no model, no network)')
      .option('--memory-model <name>', 'model of the memory pipeline (memory.model; default agent.model)')
      .option('--context-tokens <n>', "the pipeline model's context window in tokens (memory.contextTokens, default 200000)")
      .option('-l, --lineage <name>', "learn into the memory of a lineage's head (saved as a new memory snapshot: the next run starts with it); default: -w DIR's own memory, else the head of its lineage when it has one")
      .option('--dry-run', 'read and count what would be learned; store nothing, run no pipeline')
      .option('--json', 'print the report as one JSON document'),
  ).action(async (paths: string[], opts: ConfigCliOptions & { workspace: string; lineage?: string; json?: boolean; deterministic?: boolean; dryRun?: boolean; memoryModel?: string; contextTokens?: string }) => {
    const { config } = loadCliConfig(opts);
    const extractor = opts.deterministic ? 'deterministic' : extractorOf(config);
    const contextTokens = contextTokensOf(opts.contextTokens, config.memory.contextTokens);
    const workspace = await existingWorkspaceDir(opts.workspace);
    // Where the next run reads memory: a directory whose lineage has a head runs from the head, so lessons learned
    // into the checkout never reached it (thirteenth trial F9). Learned into the head, as a new memory snapshot.
    let source: MemorySource = { kind: 'workspace', dir: workspace };
    if (opts.lineage !== undefined) source = (await resolveMemorySource({ workspace, workspaceGiven: true, lineage: opts.lineage }, config)) ?? source;
    else if (!(await holdsMemory(workspace, config)) && storeExists(config.snapshot.store ?? join(config.home, 'store'))) {
      source = (await resolveMemorySource({ workspace, workspaceGiven: false }, config)) ?? source;
    }
    const learn = (dir: string): Promise<LearnReport> =>
      learnPaths(paths, dir, {
        layout: config.memory.layout,
        extractor,
        ...(extractor === 'model' ? { client: sessionModelClient(config), model: opts.memoryModel ?? config.memory.model ?? config.agent.model, contextTokens } : {}),
        config: config.memory,
        dryRun: Boolean(opts.dryRun),
        onProgress: progressPrinter(!opts.json),
      });
    const { value: report, snapshot } = source.kind === 'workspace' ? { value: await learn(source.dir), snapshot: undefined } : await onMemoryDir(source, config, learn, opts.dryRun ? undefined : {});
    const onLineage = source.kind === 'lineage' ? { lineage: source.lineage, ...(snapshot ? { head: snapshot } : {}) } : {};
    emit(Boolean(opts.json), { ...report, ...onLineage }, () =>
      [
        renderReport(report, workspace, source.kind === 'lineage' ? source.lineage : undefined),
        ...(source.kind === 'lineage' ? [snapshot ? `learned into ${describeSource(source)}: saved as ${snapshot}, its new head; the next run on it starts with these lessons` : `read against ${describeSource(source)}`] : []),
      ].join('\n'),
    );
    const p = report.pipeline;
    const mine = new Set(report.files.flatMap((f) => f.rollouts.map((r) => r.rolloutId)));
    if (p && (p.phase2Error || p.pending.some((x) => mine.has(x.rolloutId)))) process.exitCode = EXIT.failed;
  });
}

/** How many skipped files a line of the text report names; `--json` lists them all. */
const NAMED_SKIPS = 5;

/**
 * The files skipped for the reason `kind`, for its line of the report: ` (a.json, b.dat)`, at most
 * {@link NAMED_SKIPS} of them, then how many more; empty when none is known.
 */
function skippedNames(report: LearnReport, kind: string): string {
  const paths = report.files.filter((f) => f.status === 'skipped' && f.reason && skipKind(f.reason) === kind).map((f) => f.path);
  if (paths.length === 0) return '';
  const more = paths.length - NAMED_SKIPS;
  return `: ${paths.slice(0, NAMED_SKIPS).map(shellWord).join(', ')}${more > 0 ? ` and ${more} more (--json lists them)` : ''}`;
}

/**
 * The per-format table, then skips by reason, then what the pipeline did. `workspace` (absolute) is named in
 * the `memory show` hint when it is not the current directory, so the hint works as printed.
 */
export function renderReport(report: LearnReport, workspace = process.cwd(), lineage?: string): string {
  const showHint = `mnemara memory show${lineage !== undefined ? ` --lineage ${lineage}` : resolve(workspace) === process.cwd() ? '' : ` -w ${shellWord(workspace)}`}`;
  const head = ['format', 'files', 'records', 'rollouts', 'lessons', 'skipped', 'unknown (kept)', 'damaged (stubs)'];
  const rows = report.formats.map((r) => [
    r.format, String(r.files), String(r.records), String(r.rollouts), report.dryRun ? '-' : String(r.lessons), String(r.skipped),
    Object.entries(r.unknown).map(([k, n]) => `${k}×${n}`).join(', ') || '0',
    Object.entries(r.damaged).map(([k, n]) => `${k}×${n}`).join(', ') || '0',
  ]);
  const widths = head.map((h, i) => Math.min(60, maxOf(rows.map((r) => r[i]!.length), h.length)));
  const line = (cells: string[]) => cells.map((c, i) => (c.length > widths[i]! ? `${c.slice(0, widths[i]! - 1)}…` : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [report.dryRun ? 'dry run: nothing stored' : '', line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].filter((l) => l !== '');
  const skipped = Object.entries(report.skipped);
  if (skipped.length) out.push('', 'skipped:', ...skipped.map(([why, n]) => `  ${n} × ${why}${skippedNames(report, why)}`));
  const changed = report.files.flatMap((f) => f.rollouts.filter((r) => r.status !== 'same').map((r) => `  ${r.status} ${r.rolloutId} (${r.records} records${r.lessons !== null ? `, ${r.lessons} lessons` : ''}${r.injected ? `, ${r.injected} left out as injected` : ''}${r.sharedIdWith ? `; session id of ${r.sharedIdWith}, whose records differ: stored beside it` : ''})`));
  const same = report.files.flatMap((f) => f.rollouts).filter((r) => r.status === 'same').length;
  if (changed.length) pushAll(out, ['', report.dryRun ? 'would store:' : 'stored:', ...changed]);
  // Said, not only logged: the person learning a foreign memory should know it held planted instructions.
  if (report.injected > 0) {
    out.push('', `left out: ${report.injected} lesson${report.injected === 1 ? '' : 's'} telling to fetch and run code, send data away, leave the sandbox or change where requests go (not learned; the source file still holds ${report.injected === 1 ? 'it' : 'them'})`);
  }
  if (same) out.push('', `${same} already learned (no-op)`);
  const p = report.pipeline;
  if (p) {
    out.push('');
    pushAll(out, p.pending.map((x) => `pending ${x.rolloutId}: ${x.error}`));
    out.push(
      p.phase2Error
        ? `consolidation failed (${p.phase2Error.code}): ${p.phase2Error.message}; the previous MEMORY.md is kept`
        : p.consolidated
          ? `MEMORY.md: +${p.added.length} ~${p.changed.length} -${p.removed.length} entries (see: ${showHint})${archivedLine(p)}`
          : 'nothing new to consolidate',
    );
  }
  return out.join('\n');
}

/**
 * The summary line's note on entries that left MEMORY.md by rule: superseded ones and those the size cap
 * moved to archive.md, every one by id (a person's own with their words); all can come back with
 * `mnemara memory restore <id>`.
 */
function archivedLine(r: { archived?: string[]; archivedPersonal?: Array<{ id: string; text: string }>; superseded?: Array<{ id: string; stale: string }> }): string {
  const sup = r.superseded ?? [];
  const supNote = sup.length ? `; ${sup.length} superseded by newer entries, moved to memories/archive.md: ${sup.map((e) => `${e.id} “${e.stale.slice(0, 60)}”`).join(', ')}` : '';
  if (!r.archived?.length) return supNote ? `${supNote} (mnemara memory restore <id>)` : '';
  const mine = new Set((r.archivedPersonal ?? []).map((e) => e.id));
  const ids = r.archived.map((id) => (mine.has(id) ? `${id} (yours)` : id));
  return `${supNote}; ${r.archived.length} moved to memories/archive.md by the size cap: ${ids.join(', ')} (mnemara memory restore <id>)`;
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
