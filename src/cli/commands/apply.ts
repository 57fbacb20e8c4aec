import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import type { MnemaraConfig } from '../../config/schema.js';
import { existingWorkspaceDir } from '../../memory/layout.js';
import { assertHomeOutside, defaultLineage } from '../../session/start.js';
import { applyToHost, type ApplyResult } from '../../snapshot/apply.js';
import { readApplyRecord, readUndoneApply, writeApplyRecord, writeUndoneApply } from '../../snapshot/apply-record.js';
import { logger } from '../../config/logger.js';
import { memoryStore } from '../memory-source.js';
import { snapshotRef } from '../snapshot-ref.js';
import { quoteName } from '../../snapshot/names.js';
import { emit } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';

/**
 * `r` with every name in git's quoting (`quoteName`: `"lit\377\376.txt"` for a name that is not UTF-8, `"lit\\xff.txt"`
 * for one holding a real backslash, a plain name as it is), as the text lines show them: for `--json`. Without it
 * `\xNN` stood for a byte and for those four characters alike (new-user trial 28 F11).
 */
export function applyJson(r: ApplyResult): ApplyResult {
  const q = (l: string[] | undefined): string[] | undefined => l?.map(quoteName);
  const pair = <T extends { path: string }>(x: T): T => ({ ...x, path: quoteName(x.path) });
  return {
    ...r,
    added: q(r.added)!,
    removed: q(r.removed)!,
    changed: q(r.changed)!,
    ...(r.keptHost ? { keptHost: q(r.keptHost) } : {}),
    ...(r.keptEdits ? { keptEdits: q(r.keptEdits) } : {}),
    ...(r.keptDeleted ? { keptDeleted: q(r.keptDeleted) } : {}),
    ...(r.unlinked ? { unlinked: q(r.unlinked) } : {}),
    ...(r.dirsAdded ? { dirsAdded: q(r.dirsAdded) } : {}),
    ...(r.dirsRemoved ? { dirsRemoved: q(r.dirsRemoved) } : {}),
    ...(r.dirModes ? { dirModes: r.dirModes.map(pair) } : {}),
    ...(r.linked ? { linked: r.linked.map((l) => ({ path: quoteName(l.path), to: quoteName(l.to) })) } : {}),
    ...(r.linksOutside ? { linksOutside: r.linksOutside.map((l) => ({ path: quoteName(l.path), target: quoteName(l.target) })) } : {}),
    ...(r.warnings ? { warnings: r.warnings.map((w) => ({ ...pair(w), ...(w.to !== undefined ? { to: quoteName(w.to) } : {}) })) } : {}),
  };
}

/**
 * Lists the files, hard links and empty directories an apply wrote (or would write), what it kept as the user's,
 * and what it could not do. Names are in git's quoting (`quoteName`), as `snapshot patch` has them.
 */
export function describeApply(r: ApplyResult): string {
  const links = r.linked ?? [];
  const [dirsAdded, dirsRemoved, unlinked, warnings] = [r.dirsAdded ?? [], r.dirsRemoved ?? [], r.unlinked ?? [], r.warnings ?? []];
  const dirModes = r.dirModes ?? [];
  const n = r.added.length + r.changed.length + r.removed.length + links.length + unlinked.length + dirsAdded.length + dirsRemoved.length + dirModes.length + warnings.length;
  // Host files apply leaves alone because they are the user's, not the run's (new-user trial 28 F0).
  const kept = [
    ...(r.keptHost?.length ? [`kept ${r.keptHost.length} file(s) the run never saw (not in the snapshot it started from): ${r.keptHost.map(quoteName).join(', ')}`] : []),
    ...(r.keptEdits?.length ? [`kept ${r.keptEdits.length} file(s) changed here that the run did not change: ${r.keptEdits.map(quoteName).join(', ')}`] : []),
    ...(r.keptDeleted?.length ? [`kept ${r.keptDeleted.length} deletion(s) made here of what the run did not change: ${r.keptDeleted.map(quoteName).join(', ')}`] : []),
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
    ...r.added.map((p) => `  A ${quoteName(p)}`),
    ...r.changed.map((p) => `  M ${quoteName(p)}`),
    ...r.removed.map((p) => `  D ${quoteName(p)}`),
    ...dirsAdded.map((p) => `  A ${quoteName(`${p}/`)}`),
    ...dirsRemoved.map((p) => `  D ${quoteName(`${p}/`)}`),
    ...dirModes.map((m) => `  M ${quoteName(`${m.path}/`)} ${m.from.toString(8).padStart(4, '0')}→${m.to.toString(8).padStart(4, '0')}`),
    ...links.map((l) => `  L ${quoteName(l.path)} = ${quoteName(l.to)} (hard link: one file, two names)`),
    ...unlinked.map((p) => `  U ${quoteName(p)} (a file of its own now: the snapshot no longer links it to its other names)`),
    ...(r.linksOutside ?? []).map((l) => `  ! ${quoteName(l.path)} is a link to ${quoteName(l.target)}, outside ${r.dir}: in the sandbox it named the container's file, here it names this machine's`),
    ...warnings.map((w) => `  ! ${quoteName(w.path)}${w.to === undefined ? '' : ` (to ${quoteName(w.to)})`}: ${w.message}`),
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
  const undone = await readUndoneApply(config.home, dir);
  const r = await applyToHost(store, snapshot, dir, {
    layoutDirs: [memoriesDir, sessionsDir],
    ignore: config.snapshot.ignore,
    ...flags,
    lastApply,
    undone,
    onUndone: (stamps) => writeUndoneApply(config.home, dir, stamps),
  });
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
          'from is written: host files that snapshot lacks, and your edits and deletions of files the run left alone, are ' +
          'kept and listed. It refuses when a file both you and the run changed (or you deleted) would be overwritten, deleted ' +
          'or written back (or, when the start is not ' +
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
    emit(Boolean(opts.json), applyJson(r), () => describeApply(r));
  });
}
