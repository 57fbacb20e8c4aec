import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import type { MnemaraConfig } from '../../config/schema.js';
import { existingWorkspaceDir } from '../../memory/layout.js';
import { assertHomeOutside, defaultLineage } from '../../session/start.js';
import { applyToHost, type ApplyResult } from '../../snapshot/apply.js';
import { readApplyRecord, writeApplyRecord } from '../../snapshot/apply-record.js';
import { logger } from '../../config/logger.js';
import { memoryStore } from '../memory-source.js';
import { snapshotRef } from '../snapshot-ref.js';
import { emit, listedPath } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';

/** Lists the files, hard links and empty directories an apply wrote (or would write), and what it could not do. */
export function describeApply(r: ApplyResult): string {
  const links = r.linked ?? [];
  const [dirsAdded, dirsRemoved, unlinked, warnings] = [r.dirsAdded ?? [], r.dirsRemoved ?? [], r.unlinked ?? [], r.warnings ?? []];
  const dirModes = r.dirModes ?? [];
  const n = r.added.length + r.changed.length + r.removed.length + links.length + unlinked.length + dirsAdded.length + dirsRemoved.length + dirModes.length + warnings.length;
  // Host files apply leaves alone because they are the user's, not the run's (new-user trial 28 F0).
  const kept = [
    ...(r.keptHost?.length ? [`kept ${r.keptHost.length} file(s) the run never saw (not in the snapshot it started from): ${r.keptHost.map(listedPath).join(', ')}`] : []),
    ...(r.keptEdits?.length ? [`kept ${r.keptEdits.length} file(s) changed here that the run did not change: ${r.keptEdits.map(listedPath).join(', ')}`] : []),
  ];
  if (n === 0) return [`nothing to apply: ${r.dir} already holds what ${r.snapshot} holds (outside the memory layout)`, ...kept].join('\n');
  const more = [
    [links.length, 'hard link', 'hard links'],
    [unlinked.length, 'hard link broken', 'hard links broken'],
    [dirsAdded.length, 'empty directory added', 'empty directories added'],
    [dirsRemoved.length, 'empty directory removed', 'empty directories removed'],
    [dirModes.length, 'directory mode changed', 'directory modes changed'],
  ] as const;
  return [
    `${r.applied ? 'applied' : 'would apply'} ${r.snapshot} to ${r.dir}: ${r.added.length} added, ${r.changed.length} changed, ${r.removed.length} removed${more
      .filter(([k]) => k > 0)
      .map(([k, one, many]) => `, ${k} ${k === 1 ? one : many}`)
      .join('')}`,
    ...r.added.map((p) => `  A ${listedPath(p)}`),
    ...r.changed.map((p) => `  M ${listedPath(p)}`),
    ...r.removed.map((p) => `  D ${listedPath(p)}`),
    ...dirsAdded.map((p) => `  A ${listedPath(`${p}/`)}`),
    ...dirsRemoved.map((p) => `  D ${listedPath(`${p}/`)}`),
    ...dirModes.map((m) => `  M ${listedPath(`${m.path}/`)} ${m.from.toString(8).padStart(4, '0')}→${m.to.toString(8).padStart(4, '0')}`),
    ...links.map((l) => `  L ${listedPath(l.path)} = ${listedPath(l.to)} (hard link: one file, two names)`),
    ...unlinked.map((p) => `  U ${listedPath(p)} (a file of its own now: the snapshot no longer links it to its other names)`),
    ...(r.linksOutside ?? []).map((l) => `  ! ${listedPath(l.path)} is a link to ${listedPath(l.target)}, outside ${r.dir}: in the sandbox it named the container's file, here it names this machine's`),
    ...warnings.map((w) => `  ! ${listedPath(w.path)}${w.to === undefined ? '' : ` (to ${listedPath(w.to)})`}: ${w.message}`),
    ...kept,
  ].join('\n');
}

/**
 * Applies `snapshot` to the host directory `dir` with the configuration's memory layout and ignore list, and
 * records what `dir` then holds (`apply-record.ts`), so that the next apply judges host changes from there. Throws
 * what `applyToHost` throws.
 */
export async function applySnapshot(config: MnemaraConfig, snapshot: string, dir: string, flags: { force?: boolean; check?: boolean }): Promise<ApplyResult> {
  const { memoriesDir, sessionsDir } = config.memory.layout;
  // A home inside the directory is no file of the run's: the patch would delete it, store and all.
  await assertHomeOutside(dir, config.home, config.snapshot.store ?? config.home);
  const store = await memoryStore(config);
  const lastApply = await readApplyRecord(config.home, dir);
  const r = await applyToHost(store, snapshot, dir, { layoutDirs: [memoriesDir, sessionsDir], ignore: config.snapshot.ignore, ...flags, lastApply });
  // Also when there was nothing to write: the directory holds the snapshot either way.
  if (!flags.check) {
    await writeApplyRecord(config.home, dir, snapshot, (await store.get(snapshot)).rolloutIds, Date.now()).catch((err: Error) =>
      log.warn({ err: err.message }, 'could not record the apply; the next apply into this directory judges changes from the lineage\'s first run'),
    );
  }
  return r;
}

const log = logger('cli');

type Opts = ConfigCliOptions & { workspace: string; lineage?: string; from?: string; force?: boolean; check?: boolean; json?: boolean };

/** Registers `mnemara apply`: the lineage head's (or a snapshot's) changes written into the host directory. */
export function registerApplyCommand(program: Command): void {
  addConfigOptions(
    program
      .command('apply')
      .summary("write a run's changes into the host directory (git apply of the lineage head's patch)")
      .description(
        'A run never changes the host directory: its result is a snapshot on the lineage. `apply` writes what the ' +
          "lineage head (or --from SNAPSHOT) holds beyond the host directory into it, with `git apply` (all or nothing), " +
          'leaving out the memory layout, .git/ and build caches. Only what the run changed from the snapshot it started ' +
          'from is written: host files that snapshot lacks, and your edits of files the run left alone, are kept and listed. ' +
          'It refuses when a file both you and the run changed would be overwritten or deleted (or, when the start is not ' +
          "known, when the host directory was written after the first run it does not hold yet started) unless --force. " +
          'Hard links and empty directories, which a git patch does not carry, are then made as the snapshot has them ' +
          '(a link the file system refuses stays a copy, with a warning). ' +
          '`mnemara snapshot patch SNAPSHOT -w DIR` prints the same patch without applying it.',
      )
      .option('-w, --workspace <dir>', 'host directory to write into', '.')
      .option('-l, --lineage <name>', "lineage whose head to apply (default: the directory's lineage, as `mnemara run` names it)")
      .option('--from <snapshot>', 'apply this snapshot (an id, a branch LINEAGE@ROLLOUT, or a lineage for its head) instead of the lineage head')
      .option('--check', 'only check that the patch applies; write nothing')
      .option('--force', 'apply even though the host directory changed after the run started')
      .option('--json', 'print the result as one JSON document'),
  ).action(async (opts: Opts) => {
    const { config } = loadCliConfig(opts);
    await assertHomeOutside(resolve(opts.workspace), config.home, config.snapshot.store ?? config.home);
    const dir = await existingWorkspaceDir(opts.workspace);
    // --from takes what the run summary and `lineage list` print: an id, a branch LINEAGE@ROLLOUT or a lineage.
    let snapshot = opts.from === undefined ? undefined : await snapshotRef(await memoryStore(config), opts.from);
    if (snapshot === undefined) {
      const lineage = opts.lineage ?? (await defaultLineage(dir));
      const head = await (await memoryStore(config)).getHead(lineage);
      if (!head) {
        throw new MnemaraError('NOT_FOUND', `lineage ${lineage} has no snapshot to apply to ${resolve(dir)}`, {
          hint: 'Run `mnemara run -w DIR --task …` first, or name the lineage (--lineage) or snapshot (--from).',
        });
      }
      snapshot = head;
    }
    const r = await applySnapshot(config, snapshot, dir, { force: Boolean(opts.force), check: Boolean(opts.check) });
    emit(Boolean(opts.json), r, () => describeApply(r));
  });
}
